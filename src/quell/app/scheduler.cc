#include "quell/app/scheduler.h"

#include <algorithm>

#include "quell/app/split_mix.h"

namespace quell::app {

Scheduler::Scheduler(const std::vector<core::Duration>& intervals, core::MonoTime start,
                     SchedulerOptions options)
    : jitter_(std::clamp(options.jitter, 0.0, 1.0)), random_state_(options.seed) {
  groups_.reserve(intervals.size());
  for (const core::Duration interval : intervals) {
    groups_.push_back(Group{.interval = interval, .next_due = start});
  }
}

std::vector<size_t> Scheduler::Due(core::MonoTime now) const {
  std::vector<size_t> due;
  for (size_t i = 0; i < groups_.size(); ++i) {
    if (groups_[i].next_due <= now) due.push_back(i);
  }
  std::stable_sort(due.begin(), due.end(), [this](size_t a, size_t b) {
    return groups_[a].next_due < groups_[b].next_due;
  });
  return due;
}

core::MonoTime Scheduler::NextDue() const {
  core::MonoTime earliest = groups_.front().next_due;
  for (const Group& group : groups_) earliest = std::min(earliest, group.next_due);
  return earliest;
}

core::Duration Scheduler::SmallestInterval() const {
  if (groups_.empty()) return core::Duration::zero();
  core::Duration smallest = groups_.front().interval;
  for (const Group& group : groups_) smallest = std::min(smallest, group.interval);
  return smallest;
}

void Scheduler::Completed(size_t group, core::MonoTime started, core::MonoTime finished) {
  Group& g = groups_[group];
  const bool overran = finished - started >= g.interval;
  g.next_due = (overran ? finished : started) + g.interval + Jitter(g.interval);
}

core::Duration Scheduler::Jitter(core::Duration interval) {
  if (jitter_ <= 0.0) return core::Duration::zero();
  // 53 random bits as a fraction in [0, 1).
  const double unit =
      static_cast<double>(SplitMix64(random_state_) >> 11U) * (1.0 / 9007199254740992.0);
  return core::Duration(
      static_cast<core::Duration::rep>(unit * jitter_ * static_cast<double>(interval.count())));
}

}  // namespace quell::app
