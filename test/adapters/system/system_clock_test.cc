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

TEST(SystemClockTest, ANonPositiveSleepReturnsAtOnce) {
  SystemClock clock;
  clock.SleepFor(core::Duration::zero());
  clock.SleepFor(-std::chrono::hours(1));
}

}  // namespace
}  // namespace quell::system
