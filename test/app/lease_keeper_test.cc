#include "quell/app/lease_keeper.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_lease_store.h"
#include "recording_log.h"

namespace quell::app {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kLease = "poll/infrai-error-groups/1m0s";

InstanceIdentity Instance(const std::string& id) {
  return InstanceIdentity{.id = id, .host = "h", .pid = 7, .version = "0.18.0", .started_at = {}};
}

LeaseSet OneLease(core::Duration interval = seconds(60)) {
  return LeaseSet{.leases = {PollLease{kLease, interval}}, .length = seconds(15)};
}

// Two instances' keepers over one store, on one timeline the test moves.
class LeaseKeeperTest : public ::testing::Test {
 protected:
  core::WallTime Wall() const { return core::WallTime(seconds(1'800'000'000)) + elapsed_; }
  core::MonoTime Mono() const { return core::MonoTime(seconds(1000)) + elapsed_; }
  void Advance(core::Duration d) { elapsed_ += d; }
  void TickBoth() {
    (void)a_.Tick(Wall(), Mono());
    (void)b_.Tick(Wall(), Mono());
  }

  testing::FakeLeaseStore store_;
  testing::RecordingLog log_;
  std::vector<RunListener*> listeners_;
  LeaseKeeper a_{store_, log_, Instance("a"), OneLease(), listeners_};
  LeaseKeeper b_{store_, log_, Instance("b"), OneLease(), listeners_};
  core::Duration elapsed_{};
};

TEST_F(LeaseKeeperTest, OneInstanceHoldsALeaseAndTheOtherStandsBy) {
  TickBoth();
  EXPECT_EQ(a_.Held(Mono()), (HeldLeases{{kLease, 1}}));
  EXPECT_TRUE(b_.Held(Mono()).empty());
  EXPECT_TRUE(a_.State(Mono()).holds_any);
  EXPECT_FALSE(b_.State(Mono()).holds_any);
  EXPECT_EQ(b_.State(Mono()).reached_store, Mono()) << "a standby that reaches the store";
  ASSERT_EQ(log_.Named("lease.acquired").size(), 1U);
  EXPECT_EQ(log_.Named("lease.acquired")[0].at("takeover"), "false");
  // Renewals every lease/3 keep it, with the same token.
  for (int turn = 0; turn < 10; ++turn) {
    Advance(seconds(5));
    TickBoth();
  }
  EXPECT_EQ(a_.Held(Mono()), (HeldLeases{{kLease, 1}}));
  EXPECT_TRUE(b_.Held(Mono()).empty());
  EXPECT_EQ(log_.Named("lease.acquired").size(), 1U);
}

TEST_F(LeaseKeeperTest, TheTurnIsAThirdOfTheLeaseOrTheSmallestIntervalAtLeast100ms) {
  EXPECT_EQ(a_.Period(), seconds(5));
  a_.Replace(LeaseSet{.leases = {PollLease{kLease, seconds(2)}}, .length = seconds(15)});
  EXPECT_EQ(a_.Period(), seconds(2));
  a_.Replace(LeaseSet{.leases = {PollLease{kLease, milliseconds(10)}}, .length = seconds(15)});
  EXPECT_EQ(a_.Period(), milliseconds(100));
  EXPECT_EQ(a_.Tick(Wall(), Mono()), Mono() + milliseconds(100));
}

TEST_F(LeaseKeeperTest, AHolderThatCannotRenewStopsPollingBeforeItsLeaseEnds) {
  (void)a_.Tick(Wall(), Mono());
  const core::MonoTime acquired = Mono();
  store_.FailNext(1000);
  Advance(seconds(5));
  (void)a_.Tick(Wall(), Mono());
  EXPECT_FALSE(a_.Held(Mono()).empty()) << "still within lease - lease/5";
  EXPECT_FALSE(a_.State(Mono()).reached_store == Mono());
  EXPECT_FALSE(a_.Held(acquired + seconds(12) - milliseconds(1)).empty());
  EXPECT_TRUE(a_.Held(acquired + seconds(12)).empty()) << "15s - 3s: held no longer";
  Advance(seconds(7));
  (void)a_.Tick(Wall(), Mono());
  ASSERT_EQ(log_.Named("lease.lost").size(), 1U);
  EXPECT_NE(log_.Named("lease.lost")[0].at("why").find("not renewed"), std::string::npos);
  EXPECT_EQ(log_.Named("lease.lost")[0].at("token"), "1");
  EXPECT_EQ(log_.Named("lease.store_error").size(), 1U) << "an outage is said once";
  store_.FailNext(0);
  Advance(seconds(5));
  (void)a_.Tick(Wall(), Mono());
  EXPECT_EQ(log_.Named("lease.store_recovered").size(), 1U);
  EXPECT_EQ(a_.State(Mono()).reached_store, Mono());
  EXPECT_EQ(a_.Held(Mono()), (HeldLeases{{kLease, 1}})) << "nobody took it: still its token";
}

TEST_F(LeaseKeeperTest, ATakeoverAfterExpiryWaitsForTheLastPollPlusTheInterval) {
  (void)a_.Tick(Wall(), Mono());
  ASSERT_TRUE(store_.Fence(kLease, 1, Wall()).ok());  // a polled just now
  const core::MonoTime polled = Mono();
  // a dies: b tries every turn and takes the lease once it expired in the store.
  for (int turn = 0; turn < 3; ++turn) {
    Advance(seconds(5));
    (void)b_.Tick(Wall(), Mono());
    if (turn < 2) {
      EXPECT_TRUE(b_.Held(Mono()).empty()) << turn;
    }
  }
  ASSERT_EQ(store_.Get(kLease).holder, "b");
  EXPECT_EQ(store_.Get(kLease).token, 2U);
  ASSERT_EQ(log_.Named("lease.acquired").size(), 2U);
  EXPECT_EQ(log_.Named("lease.acquired")[1].at("takeover"), "true");
  EXPECT_EQ(log_.Named("lease.acquired")[1].at("previous_holder"), "a");
  EXPECT_TRUE(b_.Held(polled + seconds(60) - milliseconds(1)).empty())
      << "not before polled_at + interval";
  Advance(seconds(45));
  (void)b_.Tick(Wall(), Mono());
  EXPECT_EQ(b_.Held(polled + seconds(60)), (HeldLeases{{kLease, 2}}));
  // a wakes: its renewal finds b's lease, and it says so.
  (void)a_.Tick(Wall(), Mono());
  EXPECT_TRUE(a_.Held(Mono()).empty());
  ASSERT_EQ(log_.Named("lease.lost").size(), 1U);
  EXPECT_EQ(log_.Named("lease.lost")[0].at("holder"), "b");
}

TEST_F(LeaseKeeperTest, AReleaseAtStopHandsTheLeaseOverAtTheStandbysNextTurn) {
  (void)a_.Tick(Wall(), Mono());
  a_.ReleaseAll(Wall());
  EXPECT_EQ(log_.Named("lease.released").size(), 1U);
  EXPECT_TRUE(a_.Held(Mono()).empty());
  Advance(milliseconds(100));
  (void)b_.Tick(Wall(), Mono());
  EXPECT_EQ(b_.Held(Mono()), (HeldLeases{{kLease, 2}}));
  EXPECT_EQ(log_.Named("lease.acquired")[1].at("takeover"), "false") << "a released it";
}

TEST_F(LeaseKeeperTest, AReloadReleasesTheLeasesNoLongerPolledAndTakesTheNewOnes) {
  (void)a_.Tick(Wall(), Mono());
  a_.Replace(
      LeaseSet{.leases = {PollLease{"poll/prometheus/30s", seconds(30)}}, .length = seconds(15)});
  Advance(seconds(1));
  (void)a_.Tick(Wall(), Mono());
  EXPECT_EQ(a_.Held(Mono()), (HeldLeases{{"poll/prometheus/30s", 1}}));
  EXPECT_TRUE(store_.Get(kLease).holder.empty()) << "released for whoever polls it now";
  ASSERT_EQ(log_.Named("lease.released").size(), 1U);
  EXPECT_EQ(log_.Named("lease.released")[0].at("lease"), kLease);
}

TEST_F(LeaseKeeperTest, EachTurnRecordsTheInstance) {
  (void)a_.Tick(Wall(), Mono());
  Advance(seconds(5));
  (void)a_.Tick(Wall(), Mono());
  auto instances = store_.ListInstances();
  ASSERT_TRUE(instances.ok());
  ASSERT_EQ(instances->size(), 1U);
  EXPECT_EQ((*instances)[0].id, "a");
  EXPECT_EQ((*instances)[0].version, "0.18.0");
  EXPECT_EQ((*instances)[0].last_seen_at, Wall());
}

}  // namespace
}  // namespace quell::app
