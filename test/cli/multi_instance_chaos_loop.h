#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "multi_instance_harness.h"
#include "multi_instance_run.h"
#include "quell/sim/server.h"

namespace quell::testing {

// The chaos of the fleet run, one disturbance at a time, each at a committed-poll mark: every
// fourth committed poll from the third on, kill -9 (and restart at once) or SIGSTOP for the
// lease + 1 s (then SIGCONT) of an instance the seed picks. Every fourth disturbance, the
// first included, kills the instance that holds the poll lease: the failover the test bounds.
class ChaosLoop {
 public:
  ChaosLoop(std::vector<std::unique_ptr<Instance>>& fleet, sim::SimServer& sim, const PgSchema& db,
            uint64_t seed, Outcome& out)
      : fleet_(fleet), sim_(sim), db_(db), rng_(seed), out_(out) {}

  // An instance is paused: the run must not end before it is resumed.
  bool busy() const { return paused_ != nullptr; }
  // Called every round of the driver with the store's committed polls.
  void Tick(long long committed, long long end);
  // Each kill of the polling instance: seconds until the source's next listing, into `out`.
  void Failovers(const std::vector<std::chrono::steady_clock::time_point>& polls);

 private:
  std::vector<std::unique_ptr<Instance>>& fleet_;
  sim::SimServer& sim_;
  const PgSchema& db_;
  std::mt19937_64 rng_;
  Outcome& out_;
  long long next_ = 3;
  int events_ = 0;
  Instance* paused_ = nullptr;
  std::chrono::steady_clock::time_point resume_at_;
  // The kill's instant and the source's listings until then.
  std::vector<std::pair<std::chrono::steady_clock::time_point, int64_t>> kills_of_holder_;
};

}  // namespace quell::testing
