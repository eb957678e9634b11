#include "quell/app/run_control.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "fake_clock.h"
#include "quell/app/run_id.h"

namespace quell::app {
namespace {

using std::chrono::seconds;

// Advances on SleepFor and never waits on the wall (Clock's default WaitFor).
struct EpochClock : testing::FakeClock {
  EpochClock() : testing::FakeClock(core::WallTime{}) {}
};

TEST(RunControlTest, AWaitOnAFakeClockAdvancesItAndReturns) {
  EpochClock clock;
  RunControl control;
  control.WaitFor(clock, seconds(30), true);
  EXPECT_EQ(clock.Now(), core::WallTime{} + seconds(30));
}

TEST(RunControlTest, AStopRequestCutsAWaitShort) {
  EpochClock clock;
  RunControl control;
  control.RequestStop();
  control.WaitFor(clock, seconds(30), false);
  EXPECT_EQ(clock.Now(), core::WallTime{}) << "a pending stop returns at once";
  EXPECT_TRUE(control.stop_requested());
}

TEST(RunControlTest, ReloadWakesOnlyWaitersThatAskAndIsTakenOnce) {
  EpochClock clock;
  RunControl control;
  control.RequestReload();
  control.RequestReload();
  control.WaitFor(clock, seconds(5), false);
  EXPECT_EQ(clock.Now(), core::WallTime{} + seconds(5));
  control.WaitFor(clock, seconds(5), true);
  EXPECT_EQ(clock.Now(), core::WallTime{} + seconds(5));
  EXPECT_TRUE(control.TakeReload());
  EXPECT_FALSE(control.TakeReload());
}

TEST(RunIdTest, IsALowerCaseUuidV4AndFreshEachTime) {
  uint64_t state = 7;
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = NewRunId(state);
    ASSERT_EQ(id.size(), 36U);
    EXPECT_EQ(id[8], '-');
    EXPECT_EQ(id[13], '-');
    EXPECT_EQ(id[14], '4') << id;
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef-"), std::string::npos) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000U);
}

}  // namespace
}  // namespace quell::app
