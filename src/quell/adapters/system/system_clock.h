#pragma once

#include "quell/core/ports/clock.h"

namespace quell::system {

// The real clock: std::chrono::system_clock truncated to quell's microseconds, and a real
// sleep. The only Clock that waits on the wall. Thread-safe.
class SystemClock : public core::Clock {
 public:
  core::WallTime Now() override;
  void SleepFor(core::Duration d) override;
};

}  // namespace quell::system
