#include "quell/app/scheduler.h"

#include <gtest/gtest.h>

#include <chrono>

namespace quell::app {
namespace {

using std::chrono::seconds;

constexpr core::MonoTime kStart{std::chrono::hours(24 * 365 * 56)};

TEST(SchedulerTest, EveryGroupIsDueAtStartThenAtItsOwnInterval) {
  Scheduler s({seconds(30), seconds(60)}, kStart, {.jitter = 0.0, .seed = 1});
  EXPECT_EQ(s.Due(kStart).size(), 2U);
  EXPECT_EQ(s.SmallestInterval(), seconds(30));
  s.Completed(0, kStart, kStart + seconds(2));
  s.Completed(1, kStart + seconds(2), kStart + seconds(3));
  EXPECT_EQ(s.next_due(0), kStart + seconds(30));
  EXPECT_EQ(s.next_due(1), kStart + seconds(62));
  EXPECT_TRUE(s.Due(kStart + seconds(29)).empty());
  EXPECT_EQ(s.Due(kStart + seconds(30)), std::vector<size_t>{0});
  EXPECT_EQ(s.NextDue(), kStart + seconds(30));
}

TEST(SchedulerTest, AnOverrunningPollIsCountedFromItsEndSoItNeverOverlapsItself) {
  Scheduler s({seconds(10)}, kStart, {.jitter = 0.0, .seed = 1});
  s.Completed(0, kStart, kStart + seconds(25));
  EXPECT_EQ(s.next_due(0), kStart + seconds(35));
  EXPECT_TRUE(s.Due(kStart + seconds(25)).empty()) << "no catch-up run right after a slow one";
}

TEST(SchedulerTest, JitterIsBoundedAndSeeded) {
  Scheduler a({seconds(100)}, kStart, {.jitter = 0.2, .seed = 42});
  Scheduler b({seconds(100)}, kStart, {.jitter = 0.2, .seed = 42});
  bool varied = false;
  core::MonoTime started = kStart;
  core::Duration first{};
  for (int i = 0; i < 50; ++i) {
    a.Completed(0, started, started + seconds(1));
    b.Completed(0, started, started + seconds(1));
    ASSERT_EQ(a.next_due(0), b.next_due(0)) << "same seed, same schedule";
    const core::Duration wait = a.next_due(0) - started;
    EXPECT_GE(wait, seconds(100));
    EXPECT_LT(wait, seconds(120));
    if (i == 0) first = wait;
    varied = varied || wait != first;
    started = a.next_due(0);
  }
  EXPECT_TRUE(varied);
}

TEST(SchedulerTest, DueListsTheLongestOverdueFirst) {
  Scheduler s({seconds(10), seconds(20)}, kStart, {.jitter = 0.0, .seed = 1});
  s.Completed(1, kStart, kStart + seconds(1));               // next 20
  s.Completed(0, kStart + seconds(5), kStart + seconds(6));  // next 15
  EXPECT_EQ(s.Due(kStart + seconds(30)), (std::vector<size_t>{0, 1}));
}

}  // namespace
}  // namespace quell::app
