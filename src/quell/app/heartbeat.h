#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "quell/app/run_listener.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/http_client.h"

namespace quell::app {

struct HeartbeatOptions {
  // The check's base ping URL (e.g. https://hc-ping.com/<uuid>), without a trailing slash;
  // "/start" and "/fail" are appended to it.
  std::string url;
  core::Duration timeout = std::chrono::seconds(10);       // per attempt, connect included
  uint32_t max_attempts = 3;                               // per ping, first try included
  core::Duration first_backoff = std::chrono::seconds(1);  // doubles after each failed try
  size_t queue_capacity = 64;  // pings waiting to be sent; when full the oldest is dropped
  size_t max_reason_bytes = 1024;
};

struct HeartbeatStats {
  uint64_t sent = 0;     // pings the receiver answered 2xx
  uint64_t failed = 0;   // pings given up after their attempts, or refused with a 4xx
  uint64_t retries = 0;  // attempts after the first
  uint64_t dropped = 0;  // pings pushed out of a full queue, or left queued at destruction
  // The last ping that was sent or given up: when it ended, and whether it was answered 2xx.
  std::optional<core::WallTime> last_at;
  std::optional<bool> last_ok;
};

// The dead-man switch: a Healthchecks.io-compatible pinger driven by the run's cycles.
// OnCycleStart sends `GET {url}/start?rid=RUN`; OnCycleEnd sends `GET {url}?rid=RUN` after a
// healthy cycle, or `POST {url}/fail?rid=RUN` with a short plain-text reason. The callbacks only
// enqueue (no I/O, never blocking on the network); one worker thread sends the pings in order,
// each with bounded retries (transport errors, 429 and 5xx; other 4xx are final) and backoff
// waited on `clock`. Thread-safe. `http` and `clock` must outlive it.
class Heartbeat : public RunListener {
 public:
  Heartbeat(core::HttpClient& http, core::Clock& clock, HeartbeatOptions options);
  // Finishes the ping in flight (its retries cut short) and drops what is still queued.
  ~Heartbeat() override;
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  void OnCycleStart(const std::string& run_id, core::WallTime at) override;
  void OnCycleEnd(const std::string& run_id, const CycleReport& report, core::WallTime at) override;
  void OnDispatch(const DispatchReport& report, core::WallTime at) override;

  // Blocks until every ping enqueued so far was sent, given up or dropped; for tests and for
  // a clean shutdown that wants its last ping out.
  void WaitIdle();
  HeartbeatStats Stats() const;

 private:
  struct Ping {
    std::string method;
    std::string url;
    std::string body;
  };

  void Enqueue(Ping ping);
  void Run();
  void Send(const Ping& ping);

  core::HttpClient& http_;
  core::Clock& clock_;
  const HeartbeatOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<Ping> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  HeartbeatStats stats_;
  std::thread worker_;  // last: starts after everything it reads
};

// The /fail body: which conditions failed and why, one line each, with URL query strings and
// credentials removed, cut to `max_bytes` on a UTF-8 boundary.
std::string HeartbeatFailureReason(const CycleReport& report, size_t max_bytes);

}  // namespace quell::app
