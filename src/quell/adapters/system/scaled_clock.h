#pragma once

#include <chrono>

#include "quell/core/ports/clock.h"

namespace quell::system {

// A clock that runs `factor` times faster than the wall, from `start`: `quell demo` lets an
// outage of minutes of one-minute polls play in seconds. Sleeps shrink by the same factor, so
// schedules, cooldowns and backoffs keep their proportions. Thread-safe.
class ScaledClock : public core::Clock {
 public:
  ScaledClock(core::WallTime start, double factor);
  core::WallTime Now() override;
  // Scaled like Now(), from zero at construction.
  core::MonoTime Monotonic() override;
  void SleepFor(core::Duration d) override;
  bool WaitFor(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, core::Duration d,
               const std::function<bool()>& done) override;

 private:
  const core::WallTime start_;
  const double factor_;
  const std::chrono::steady_clock::time_point origin_;
};

}  // namespace quell::system
