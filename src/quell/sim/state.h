#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <vector>

#include "quell/sim/clock.h"
#include "quell/sim/faults.h"
#include "quell/sim/idempotency.h"
#include "quell/sim/request_log.h"
#include "quell/sim/store.h"

namespace quell::sim {

// Knobs a scenario or the admin API may change; Reset() restores the start-up values.
struct SimConfig {
  size_t page_size = 0;       // server-side default page size for listings; 0 = everything at once
  size_t max_page_size = 0;   // caps a client's `limit`; 0 = no cap
  size_t detail_events = 10;  // events[] length in group_detail
  core::Duration metrics_window = std::chrono::hours(1);  // metrics.query default range
  std::optional<core::Duration> advance_per_poll;         // the clock moves this much per poll
};

// A scripted change, applied once when the poll counter or the clock reaches it.
struct TimelineStep {
  std::optional<int64_t> poll;
  std::optional<core::WallTime> at;
  nlohmann::json actions;  // array of action objects, see scenario.h
  bool done = false;
};

// Lets a hanging (timeout-fault) request end promptly when the server stops.
class Sleeper {
 public:
  void SleepFor(std::chrono::milliseconds d) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, d, [this] { return stopping_; });
  }
  void WakeAll() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
};

// Everything one simulated Infrai account holds. Handlers run with `mu` held; one lock keeps
// the model simple and is far from the bottleneck (serialising JSON dominates).
struct SimState {
  SimState(SimClock c, SimConfig cfg, uint64_t seed)
      : clock(c), config(cfg), base_config(cfg), rng(seed) {}

  std::mutex mu;
  SimClock clock;
  Store store;
  FaultSet faults;
  std::vector<Fault> startup_faults;  // from the command line; survive Reset()
  RequestLog log;
  IdempotencyCache idempotency;
  std::vector<TimelineStep> timeline;
  std::deque<nlohmann::json> logs;  // logs.ingest entries, newest last, bounded
  SimConfig config;
  SimConfig base_config;
  int64_t polls = 0;  // first-page listing requests served (a paginated walk counts once)
  std::mt19937_64 rng;
  Sleeper sleeper;

  // Back to the start-up state: no groups or series, start-up faults only, clock at its start.
  void Reset() {
    store.Clear();
    faults.Clear();
    for (const Fault& f : startup_faults) faults.Add(f);
    log.Clear();
    idempotency.Clear();
    timeline.clear();
    logs.clear();
    config = base_config;
    polls = 0;
    clock.Reset();
  }
};

}  // namespace quell::sim
