#pragma once

#include "quell/core/ports/clock.h"

namespace quell::system {

// The real clock: std::chrono::system_clock truncated to quell's microseconds for Now(),
// std::chrono::steady_clock for Monotonic(), and a real sleep. The only Clock that waits on the
// wall. Thread-safe.
class SystemClock : public core::Clock {
 public:
  core::WallTime Now() override;
  core::MonoTime Monotonic() override;
  void SleepFor(core::Duration d) override;
  // A real wait on `cv`, cut short by a notify.
  bool WaitFor(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, core::Duration d,
               const std::function<bool()>& done) override;
};

}  // namespace quell::system
