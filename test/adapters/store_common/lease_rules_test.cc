#include "quell/adapters/store_common/lease_rules.h"

#include <gtest/gtest.h>

#include <chrono>

namespace quell::store {
namespace {

using namespace std::chrono_literals;

const core::WallTime kT0 = core::WallTime(core::Duration(1'800'000'000'000'000));
constexpr core::Duration kTtl = std::chrono::seconds(15);

core::Lease Held(const std::string& holder, uint64_t token, core::WallTime expires_at) {
  core::Lease lease;
  lease.name = "poll/s/1m0s";
  lease.holder = holder;
  lease.token = token;
  lease.expires_at = expires_at;
  lease.acquired_at = kT0 - 1h;
  lease.renewed_at = kT0 - 1h;
  lease.polled_at = kT0 - 30s;
  return lease;
}

TEST(LeaseRulesTest, TheHolderRenewsEvenPastItsExpiryAndKeepsItsToken) {
  // Nobody held it since (the holder column would say so), so its polls' token stays right.
  const core::LeaseClaim claim = NextLease(Held("a", 4, kT0 - 1s), "poll/s/1m0s", "a", kT0, kTtl);
  EXPECT_TRUE(claim.held);
  EXPECT_FALSE(claim.acquired);
  EXPECT_EQ(claim.lease.token, 4u);
  EXPECT_EQ(claim.lease.acquired_at, kT0 - 1h);
  EXPECT_EQ(claim.lease.renewed_at, kT0);
  EXPECT_EQ(claim.lease.polled_at, kT0 - 30s);
}

TEST(LeaseRulesTest, ALiveLeaseOfAnotherIsLeftAsItIs) {
  const core::Lease current = Held("a", 4, kT0 + 1us);
  const core::LeaseClaim claim = NextLease(current, "poll/s/1m0s", "b", kT0, kTtl);
  EXPECT_FALSE(claim.held);
  EXPECT_FALSE(claim.acquired);
  EXPECT_EQ(claim.lease.holder, "a");
  EXPECT_EQ(claim.lease.expires_at, current.expires_at);
}

TEST(LeaseRulesTest, AReleasedLeaseIsTakenBeforeItsExpiryWithNoPreviousHolder) {
  const core::LeaseClaim claim = NextLease(Held("", 4, kT0 + 1h), "poll/s/1m0s", "b", kT0, kTtl);
  EXPECT_TRUE(claim.acquired);
  EXPECT_EQ(claim.previous_holder, "");
  EXPECT_EQ(claim.lease.token, 5u);
  EXPECT_EQ(claim.lease.polled_at, kT0 - 30s) << "the new holder keeps the interval";
}

TEST(LeaseRulesTest, FencedMessagesSayWhy) {
  EXPECT_EQ(FencedMessage("poll/s/1m0s", 7, true),
            "fenced: lease poll/s/1m0s was taken over (token 7 is no longer current); this poll "
            "commits nothing");
  EXPECT_EQ(FencedMessage("poll/s/1m0s", 7, false), "fenced: lease poll/s/1m0s is not held");
}

}  // namespace
}  // namespace quell::store
