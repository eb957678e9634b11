#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "quell/core/ports/clock.h"
#include "quell/core/text/time.h"

namespace quell::app {

struct SchedulerOptions {
  // Each wait is stretched by a random fraction of its interval in [0, jitter), so daemons
  // started together drift apart instead of polling a shared source in lockstep.
  double jitter = 0.1;
  uint64_t seed = 0;
};

// When each poll group is next due: one group per distinct condition interval, each on its own
// cadence, in monotonic time: a wall-clock step moves no cadence. Pure: time comes in. A
// group's next cycle is counted from its start, or from its end
// when it overran its interval, so a slow poll never overlaps itself and never runs twice in a
// row to catch up. Not thread-safe.
class Scheduler {
 public:
  // Every group is first due at `start`. `intervals` must be positive.
  Scheduler(const std::vector<core::Duration>& intervals, core::MonoTime start,
            SchedulerOptions options);

  size_t size() const { return groups_.size(); }
  core::Duration interval(size_t group) const { return groups_[group].interval; }
  core::MonoTime next_due(size_t group) const { return groups_[group].next_due; }
  // The groups due at `now`, the longest overdue first.
  std::vector<size_t> Due(core::MonoTime now) const;
  // The earliest next_due over all groups; `now`-independent. Requires size() > 0.
  core::MonoTime NextDue() const;
  // The smallest interval (what health checks measure staleness against); zero when empty.
  core::Duration SmallestInterval() const;
  // A cycle of `group` ran from `started` to `finished`.
  void Completed(size_t group, core::MonoTime started, core::MonoTime finished);
  // `group` was not polled (another instance holds its lease): due again at `at`, so a standby
  // polls soon after it takes the lease over rather than an interval later.
  void Defer(size_t group, core::MonoTime at) { groups_[group].next_due = at; }

 private:
  struct Group {
    core::Duration interval;
    core::MonoTime next_due;
  };
  core::Duration Jitter(core::Duration interval);

  std::vector<Group> groups_;
  double jitter_;
  uint64_t random_state_;
};

}  // namespace quell::app
