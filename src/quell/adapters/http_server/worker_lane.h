#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "quell/adapters/http_server/connection_gate.h"

namespace quell::http_server {

// A fixed set of threads serving the connections handed to it, oldest first. The ops server
// keeps two: one for the health probes, so that no other request, however slow, delays them.
class WorkerLane {
 public:
  using Handle = std::function<void(HeldConnection)>;
  // `serve` runs on the lane's threads; `discard` gets what is still queued at Stop.
  WorkerLane(size_t threads, Handle serve, Handle discard);
  ~WorkerLane();
  WorkerLane(const WorkerLane&) = delete;
  WorkerLane& operator=(const WorkerLane&) = delete;

  // Queues a connection; after Stop it is discarded at once. Thread-safe.
  void Push(HeldConnection connection);
  // Lets the connections being served finish, discards the queued ones, joins. Idempotent.
  void Stop();

 private:
  void Run();

  const Handle serve_;
  const Handle discard_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<HeldConnection> queue_;  // guarded by mutex_
  bool stopping_ = false;             // guarded by mutex_
  std::vector<std::thread> threads_;
};

}  // namespace quell::http_server
