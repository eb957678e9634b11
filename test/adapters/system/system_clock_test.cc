#include "quell/adapters/system/system_clock.h"

#include <gtest/gtest.h>

#include <chrono>

namespace quell::system {
namespace {

TEST(SystemClockTest, ReadsTheWallInWholeMicroseconds) {
  SystemClock clock;
  const auto before = std::chrono::floor<core::Duration>(std::chrono::system_clock::now());
  const core::WallTime now = clock.Now();
  const auto after = std::chrono::system_clock::now();
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
}

// Monotonic() is the steady clock, in quell's microseconds: never behind an earlier reading.
TEST(SystemClockTest, ReadsTheSteadyClockForMonotonicTime) {
  SystemClock clock;
  const auto before = std::chrono::floor<core::Duration>(std::chrono::steady_clock::now());
  const core::MonoTime first = clock.Monotonic();
  const auto after = std::chrono::steady_clock::now();
  EXPECT_LE(before.time_since_epoch(), first.time_since_epoch());
  EXPECT_LE(first.time_since_epoch(), after.time_since_epoch());
  EXPECT_GE(clock.Monotonic(), first);
}

TEST(SystemClockTest, ANonPositiveSleepReturnsAtOnce) {
  SystemClock clock;
  clock.SleepFor(core::Duration::zero());
  clock.SleepFor(-std::chrono::hours(1));
}

}  // namespace
}  // namespace quell::system
