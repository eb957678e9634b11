#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "quell/core/ports/clock.h"
#include "quell/core/text/time.h"

namespace httplib {
class Server;
}

namespace quell::demo {

// The webhook receiver `quell demo` delivers to, behaving as a real one may: it checks each
// request's signature, keeps one message per Idempotency-Key (a repeat is answered 200 and
// dropped), and holds the first request it ever accepts past the sender's timeout, so the
// sender gives up on a message that was in fact received and must retry with the same key.
class DemoReceiver {
 public:
  struct Arrival {
    core::WallTime at;  // on the demo's clock
    std::string idempotency_key;
    std::string transition;  // "open", "renotify", "resolve"
    bool duplicate = false;  // a key already received
    bool held = false;       // answered only after the hold
  };

  // `clock` is the sender's: it stamps the signatures this checks.
  DemoReceiver(std::string secret, core::Clock& clock, core::Duration hold);
  ~DemoReceiver();
  DemoReceiver(const DemoReceiver&) = delete;
  DemoReceiver& operator=(const DemoReceiver&) = delete;

  // Binds 127.0.0.1 on a free port and serves on a thread; false when it cannot bind.
  bool Start();
  std::string Url() const;

  std::vector<Arrival> arrivals() const;
  size_t rejected() const;  // bad signatures
  // Blocks until `n` distinct messages arrived or `timeout` (wall time) passed.
  bool WaitForDistinct(size_t n, core::Duration timeout) const;

 private:
  void Receive(const std::string& key, const std::string& timestamp, const std::string& signature,
               const std::string& body, int& status);

  const std::string secret_;
  core::Clock& clock_;
  const core::Duration hold_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::vector<Arrival> arrivals_;
  size_t distinct_ = 0;
  size_t rejected_ = 0;
  bool held_one_ = false;
  bool stopping_ = false;
};

}  // namespace quell::demo
