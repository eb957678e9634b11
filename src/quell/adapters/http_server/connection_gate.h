#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::http_server {

// A client connection whose request head has arrived whole: its socket (non-blocking) and
// every byte read from it so far, the head first.
struct HeldConnection {
  int fd = -1;
  std::string buffered;
};

struct GateOptions {
  // A request head must arrive whole within this of the connection (or its previous request);
  // a slower one, however steadily it trickles, is answered 408 and closed.
  core::Duration header_timeout = std::chrono::seconds(10);
  // A connection kept open between requests with nothing sent is closed after this.
  core::Duration idle_timeout = std::chrono::seconds(5);
  // Connections held at once, in any state. Past it the one that has waited longest for its
  // head is closed to make room, so idle sockets cannot lock a health probe out.
  size_t max_connections = 256;
  size_t max_head_bytes = size_t{16} * 1024;  // a longer head is answered 431 and closed
};

// Accepts connections and reads their request heads on one thread with poll(), so a client
// that connects and says nothing, or sends its head a line at a time, holds a socket and a
// buffer but never a worker. A connection is handed to `ready` (on the gate's thread; it must
// not block) once its head is complete. Thread-safe where noted.
class ConnectionGate {
 public:
  using Ready = std::function<void(HeldConnection)>;
  ConnectionGate(GateOptions options, Ready ready);
  ~ConnectionGate();
  ConnectionGate(const ConnectionGate&) = delete;
  ConnectionGate& operator=(const ConnectionGate&) = delete;

  // Binds host:port (port 0: a free one) with SO_REUSEADDR and listens; returns the port.
  // kUnavailable naming the cause when it cannot.
  core::Result<int> Listen(const std::string& host, int port, const std::string& listen_text);
  // Starts the gate's thread; call after Listen.
  void Start();
  // Closes the listening socket and every connection still waiting for its head, and joins
  // the thread. Idempotent. Connections handed out stay the workers' to close.
  void Stop();

  // A worker is done with a request and the client may send another: wait for its next head
  // (bytes already read past the last request count towards it). Closes it after Stop.
  // Thread-safe.
  void Return(HeldConnection connection);
  // A worker closed a connection it was handed. Thread-safe.
  void Closed();

 private:
  struct Waiting {
    int fd;
    std::string buffered;
    std::chrono::steady_clock::time_point since;
    std::chrono::steady_clock::time_point deadline;
    bool between_requests;  // kept alive after a request: closes quietly when idle
  };

  // Why a connection is closed before a request was served; told to the client (no answer
  // for kNone: it left, or was idle between requests).
  enum class Refusal : uint8_t { kNone, kTimedOut, kHeadTooLarge };
  static void SendRefusal(int fd, Refusal refusal);

  void Run();
  void AcceptAll(std::chrono::steady_clock::time_point now);
  // Reads what `w` has sent; true when it is done waiting (handed out or closed).
  bool ReadHead(Waiting& w);
  // Hands `w` out when its head is complete; true when it did.
  bool HandOutIfComplete(Waiting& w);
  void CloseWaiting(Waiting& w, Refusal refusal);
  void TakeReturned(std::chrono::steady_clock::time_point now);
  void Wake() const;

  const GateOptions options_;
  const Ready ready_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;              // an eventfd: Return and Stop wake the poll
  std::atomic<size_t> open_{0};   // connections accepted and not yet closed
  std::vector<Waiting> waiting_;  // the gate thread's own
  std::mutex returned_mutex_;
  std::vector<HeldConnection> returned_;  // guarded by returned_mutex_
  bool stopped_ = false;                  // guarded by returned_mutex_
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// Shuts down and closes a client socket.
void CloseSocket(int fd);

}  // namespace quell::http_server
