#pragma once

#include <mutex>
#include <vector>

#include "quell/core/ports/clock.h"

namespace quell::testing {

// A clock that only moves when something sleeps on it, and remembers every sleep.
class FakeClock : public core::Clock {
 public:
  explicit FakeClock(core::WallTime start) : now_(start) {}

  core::WallTime Now() override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return now_;
  }
  void SleepFor(core::Duration d) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    sleeps_.push_back(d);
    now_ += d;
  }
  std::vector<core::Duration> sleeps() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return sleeps_;
  }

 private:
  std::mutex mutex_;
  core::WallTime now_;
  std::vector<core::Duration> sleeps_;
};

}  // namespace quell::testing
