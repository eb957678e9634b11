#pragma once

#include <mutex>
#include <vector>

#include "quell/core/ports/clock.h"

namespace quell::testing {

// A clock that only moves when something sleeps on it, and remembers every sleep. StepWall
// moves the wall alone, as an NTP step or a hand-set date does: what measures an interval must
// not notice.
class FakeClock : public core::Clock {
 public:
  explicit FakeClock(core::WallTime start) : now_(start) {}

  core::WallTime Now() override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return now_;
  }
  core::MonoTime Monotonic() override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return mono_;
  }
  void SleepFor(core::Duration d) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    sleeps_.push_back(d);
    now_ += d;
    mono_ += d;
  }
  // Moves both readings by `d`, as time passing does, without counting it as a sleep.
  void Advance(core::Duration d) {
    const std::lock_guard<std::mutex> lock(mutex_);
    now_ += d;
    mono_ += d;
  }
  // Moves the wall clock by `d` (either way) and leaves the monotonic reading.
  void StepWall(core::Duration d) {
    const std::lock_guard<std::mutex> lock(mutex_);
    now_ += d;
  }
  std::vector<core::Duration> sleeps() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return sleeps_;
  }

 private:
  std::mutex mutex_;
  core::WallTime now_;
  core::MonoTime mono_{std::chrono::hours(1)};  // not zero, so a zero reading means unset
  std::vector<core::Duration> sleeps_;
};

}  // namespace quell::testing
