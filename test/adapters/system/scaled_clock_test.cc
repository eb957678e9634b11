#include "quell/adapters/system/scaled_clock.h"

#include <gtest/gtest.h>

#include <chrono>

namespace quell::system {
namespace {

constexpr core::WallTime kStart{std::chrono::seconds(1796202000)};  // 2026-12-02T09:00:00Z

TEST(ScaledClockTest, StartsAtItsStartAndNeverGoesBack) {
  ScaledClock clock(kStart, 60.0);
  const core::WallTime first = clock.Now();
  EXPECT_GE(first, kStart);
  EXPECT_LT(first, kStart + std::chrono::minutes(1));  // constructed well under a second ago
  EXPECT_GE(clock.Now(), first);
}

TEST(ScaledClockTest, ASimulatedMinuteSleepsAboutOneSecondAtSixtyTimes) {
  ScaledClock clock(kStart, 60.0);
  const auto real_before = std::chrono::steady_clock::now();
  const core::WallTime before = clock.Now();
  clock.SleepFor(std::chrono::seconds(6));  // 100 ms of wall time
  const auto real_slept = std::chrono::steady_clock::now() - real_before;
  EXPECT_GE(real_slept, std::chrono::milliseconds(100));
  // Asleep at least the simulated six seconds; a loaded machine may oversleep, never under.
  EXPECT_GE(clock.Now() - before, std::chrono::seconds(6));
  // The monotonic reading runs at the same scale, from zero at construction.
  const core::MonoTime mono = clock.Monotonic();
  EXPECT_GE(mono.time_since_epoch(), std::chrono::seconds(6));
  EXPECT_LE(mono.time_since_epoch(), clock.Now() - kStart);
}

}  // namespace
}  // namespace quell::system
