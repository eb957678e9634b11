#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace quell::http_server {

// A fixed set of threads running the jobs pushed to it, oldest first. The ops server keeps one
// per class of request (each probe path, authenticated, unauthenticated), so that no class
// waits in another's queue, however slow its handlers.
class WorkerLane {
 public:
  // Runs with true on one of the lane's threads, or with false (to let go of what it holds)
  // when the lane stops before it ran.
  using Job = std::function<void(bool run)>;

  explicit WorkerLane(size_t threads);
  ~WorkerLane();
  WorkerLane(const WorkerLane&) = delete;
  WorkerLane& operator=(const WorkerLane&) = delete;

  // Queues a job; after Stop it runs with false at once, on the caller's thread. Thread-safe.
  void Push(Job job);
  // Lets the jobs running finish, gives the queued ones false, joins. Idempotent.
  void Stop();

 private:
  void Run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;  // guarded by mutex_
  bool stopping_ = false;  // guarded by mutex_
  std::vector<std::thread> threads_;
};

}  // namespace quell::http_server
