#pragma once

#include <chrono>

#include "quell/core/text/time.h"

namespace quell::sim {

// The simulator's "now". Manual by default: tests and the demo move time with Advance() (or the
// admin endpoint) so a scripted scenario replays identically, with no sleeps. In real mode the
// wall clock runs and Advance() adds a fixed offset on top. Not thread-safe: SimState's mutex
// guards it.
class SimClock {
 public:
  explicit SimClock(core::WallTime start) : manual_(true), start_(start) {}
  static SimClock Real() {
    SimClock clock(core::WallTime{});
    clock.manual_ = false;
    return clock;
  }

  core::WallTime Now() const {
    if (manual_) return start_ + offset_;
    return std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now()) + offset_;
  }
  void Advance(core::Duration by) { offset_ += by; }
  // Jumps to `t`; in real mode this becomes an offset from the wall clock.
  void Set(core::WallTime t) { offset_ += t - Now(); }
  // Back to the start instant (manual) or to the plain wall clock (real).
  void Reset() { offset_ = core::Duration{0}; }
  bool manual() const { return manual_; }

 private:
  bool manual_;
  core::WallTime start_;
  core::Duration offset_{0};
};

}  // namespace quell::sim
