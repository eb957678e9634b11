// Poll leases on SQLite and PostgreSQL: who holds a lease, the fencing token that grows with
// every new holder, the instances seen, and the fence a poll's commit passes only while its
// token is current. Two connections stand for two quell processes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "quell/adapters/store_common/schema.h"
#include "quell/core/text/time.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using namespace std::chrono_literals;
using core::ErrorCode;

const core::WallTime kT0 = *core::ParseRfc3339("2026-12-04T09:00:00Z");
constexpr core::Duration kTtl = std::chrono::seconds(15);
constexpr const char* kLease = "poll/infrai-error-groups/1m0s";

class LeaseContractTest : public StoreTest {
 protected:
  core::LeaseClaim Take(core::Store& store, const std::string& holder, core::WallTime now) {
    auto claim = store.leases().Acquire(kLease, holder, now, kTtl);
    EXPECT_TRUE(claim.ok()) << claim.error().message;
    return claim.ok() ? *claim : core::LeaseClaim{};
  }
  std::optional<std::string> Mark(core::Store& store) {
    auto mark = store.incidents().GetSourceMark("errors:listing");
    EXPECT_TRUE(mark.ok()) << mark.error().message;
    return mark.ok() ? *mark : std::nullopt;
  }
};

TEST_P(LeaseContractTest, ANewLeaseGoesToItsFirstHolderWithTokenOne) {
  const core::LeaseClaim claim = Take(*store_, "a", kT0);
  EXPECT_TRUE(claim.held);
  EXPECT_TRUE(claim.acquired);
  EXPECT_EQ(claim.previous_holder, "");
  EXPECT_EQ(claim.lease.name, kLease);
  EXPECT_EQ(claim.lease.holder, "a");
  EXPECT_EQ(claim.lease.token, 1u);
  EXPECT_EQ(claim.lease.expires_at, kT0 + kTtl);
  EXPECT_EQ(claim.lease.acquired_at, kT0);
  EXPECT_EQ(claim.lease.renewed_at, kT0);
  EXPECT_FALSE(claim.lease.polled_at.has_value());
}

TEST_P(LeaseContractTest, ARenewalKeepsTheTokenAndMovesTheExpiry) {
  Take(*store_, "a", kT0);
  const core::LeaseClaim renewed = Take(*store_, "a", kT0 + 5s);
  EXPECT_TRUE(renewed.held);
  EXPECT_FALSE(renewed.acquired);
  EXPECT_EQ(renewed.lease.token, 1u);
  EXPECT_EQ(renewed.lease.expires_at, kT0 + 5s + kTtl);
  EXPECT_EQ(renewed.lease.renewed_at, kT0 + 5s);
  EXPECT_EQ(renewed.lease.acquired_at, kT0);
}

TEST_P(LeaseContractTest, AnotherHolderWaitsUntilTheLeaseExpiresThenTakesTheNextToken) {
  Take(*store_, "a", kT0);
  const core::LeaseClaim early = Take(*store_, "b", kT0 + kTtl - 1us);
  EXPECT_FALSE(early.held);
  EXPECT_FALSE(early.acquired);
  EXPECT_EQ(early.lease.holder, "a");
  EXPECT_EQ(early.lease.token, 1u);
  EXPECT_EQ(early.lease.expires_at, kT0 + kTtl);

  const core::LeaseClaim taken = Take(*store_, "b", kT0 + kTtl);  // expires_at <= now
  EXPECT_TRUE(taken.held);
  EXPECT_TRUE(taken.acquired);
  EXPECT_EQ(taken.previous_holder, "a");
  EXPECT_EQ(taken.lease.holder, "b");
  EXPECT_EQ(taken.lease.token, 2u);
  EXPECT_EQ(taken.lease.acquired_at, kT0 + kTtl);
  EXPECT_FALSE(Take(*store_, "a", kT0 + kTtl + 1s).held) << "the old holder lost it";
}

TEST_P(LeaseContractTest, AReleasedLeaseGoesAtOnceWithTheNextTokenAndNoPreviousHolder) {
  const core::LeaseClaim a = Take(*store_, "a", kT0);
  ASSERT_TRUE(store_->leases().Release(kLease, "a", a.lease.token, kT0 + 1s).ok());
  const auto leases = store_->leases().ListLeases();
  ASSERT_TRUE(leases.ok()) << leases.error().message;
  ASSERT_EQ(leases->size(), 1u);
  EXPECT_EQ((*leases)[0].holder, "");
  EXPECT_EQ((*leases)[0].token, 1u);
  EXPECT_EQ((*leases)[0].expires_at, kT0 + 1s);

  const core::LeaseClaim b = Take(*store_, "b", kT0 + 2s);
  EXPECT_TRUE(b.held);
  EXPECT_TRUE(b.acquired);
  EXPECT_EQ(b.previous_holder, "");
  EXPECT_EQ(b.lease.token, 2u);
}

TEST_P(LeaseContractTest, AReleaseByANonHolderOrAStaleTokenChangesNothing) {
  Take(*store_, "a", kT0);
  Take(*store_, "b", kT0 + kTtl);  // token 2
  ASSERT_TRUE(store_->leases().Release(kLease, "a", 1, kT0 + kTtl + 1s).ok());
  ASSERT_TRUE(store_->leases().Release(kLease, "b", 1, kT0 + kTtl + 1s).ok());
  ASSERT_TRUE(store_->leases().Release("poll/none/1m0s", "b", 2, kT0 + kTtl + 1s).ok());
  const auto leases = store_->leases().ListLeases();
  ASSERT_TRUE(leases.ok()) << leases.error().message;
  ASSERT_EQ(leases->size(), 1u);
  EXPECT_EQ((*leases)[0].holder, "b");
  EXPECT_EQ((*leases)[0].token, 2u);
  EXPECT_EQ((*leases)[0].expires_at, kT0 + kTtl + kTtl);
}

TEST_P(LeaseContractTest, ListsLeasesByName) {
  for (const char* name : {"poll/b/1m0s", "poll/a/1m0s/x/shard-2-of-2", "poll/a/1m0s"}) {
    ASSERT_TRUE(store_->leases().Acquire(name, "i", kT0, kTtl).ok());
  }
  const auto leases = store_->leases().ListLeases();
  ASSERT_TRUE(leases.ok()) << leases.error().message;
  std::vector<std::string> names;
  for (const core::Lease& l : *leases) names.push_back(l.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"poll/a/1m0s", "poll/a/1m0s/x/shard-2-of-2", "poll/b/1m0s"}));
}

TEST_P(LeaseContractTest, SeesInstancesAndForgetsTheLongGone) {
  core::InstanceSeen a{"host1:10:x", "host1", 10, "0.18.0", kT0, kT0};
  core::InstanceSeen b{"host2:20:y", "host2", 20, "0.18.0", kT0, kT0 + 1h};
  ASSERT_TRUE(store_->leases().SeeInstance(a, kT0 - 24h).ok());
  ASSERT_TRUE(store_->leases().SeeInstance(b, kT0 - 24h).ok());
  auto seen = store_->leases().ListInstances();
  ASSERT_TRUE(seen.ok()) << seen.error().message;
  ASSERT_EQ(seen->size(), 2u);
  EXPECT_EQ((*seen)[0].id, "host1:10:x");
  EXPECT_EQ((*seen)[0].pid, 10u);
  EXPECT_EQ((*seen)[1].last_seen_at, kT0 + 1h);

  b.last_seen_at = kT0 + 25h;  // an upsert, and a is 25 h old: forgotten
  ASSERT_TRUE(store_->leases().SeeInstance(b, kT0 + 1h).ok());
  seen = store_->leases().ListInstances();
  ASSERT_TRUE(seen.ok()) << seen.error().message;
  ASSERT_EQ(seen->size(), 1u);
  EXPECT_EQ((*seen)[0].id, "host2:20:y");
  EXPECT_EQ((*seen)[0].host, "host2");
  EXPECT_EQ((*seen)[0].version, "0.18.0");
  EXPECT_EQ((*seen)[0].started_at, kT0);
  EXPECT_EQ((*seen)[0].last_seen_at, kT0 + 25h);
}

TEST_P(LeaseContractTest, TheFencePassesForTheCurrentTokenAndRecordsThePoll) {
  const core::LeaseClaim a = Take(*store_, "a", kT0);
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok()) << tx.error().message;
  ASSERT_TRUE((*tx)->PutSourceMark("errors:listing", "w1", kT0 + 1s).ok());
  const core::Status fenced = (*tx)->FencePoll(kLease, a.lease.token, kT0 + 1s);
  ASSERT_TRUE(fenced.ok()) << fenced.error().message;
  ASSERT_TRUE((*tx)->Commit().ok());
  EXPECT_EQ(Mark(*store_), std::optional<std::string>("w1"));
  EXPECT_EQ((*store_->leases().ListLeases())[0].polled_at, kT0 + 1s);
  // A renewal and a takeover keep polled_at: a new holder waits an interval after it.
  EXPECT_EQ(Take(*store_, "a", kT0 + 2s).lease.polled_at, kT0 + 1s);
  EXPECT_EQ(Take(*store_, "b", kT0 + 2s + kTtl).lease.polled_at, kT0 + 1s);
}

TEST_P(LeaseContractTest, APollUnderATakenOverLeaseCommitsNothing) {
  const core::LeaseClaim a = Take(*store_, "a", kT0);
  std::optional<core::Store> other;
  Connect(other);
  ASSERT_TRUE(Take(*other, "b", kT0 + kTtl).acquired);
  {
    auto tx = store_->incidents().Begin();
    ASSERT_TRUE(tx.ok()) << tx.error().message;
    ASSERT_TRUE((*tx)->PutSourceMark("errors:listing", "w1", kT0 + kTtl).ok());
    const core::Status fenced = (*tx)->FencePoll(kLease, a.lease.token, kT0 + kTtl);
    ASSERT_FALSE(fenced.ok());
    EXPECT_EQ(fenced.error().code, ErrorCode::kConflict);
    EXPECT_EQ(fenced.error().message,
              "fenced: lease poll/infrai-error-groups/1m0s was taken over (token 1 is no longer "
              "current); this poll commits nothing");
  }  // rolled back, as the applier does
  EXPECT_EQ(Mark(*store_), std::nullopt);
  EXPECT_FALSE((*store_->leases().ListLeases())[0].polled_at.has_value());

  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok()) << tx.error().message;
  const core::Status never = (*tx)->FencePoll("poll/none/1m0s", 1, kT0);
  ASSERT_FALSE(never.ok());
  EXPECT_EQ(never.error().code, ErrorCode::kConflict);
  EXPECT_EQ(never.error().message, "fenced: lease poll/none/1m0s is not held");
}

// A poll that passed its fence holds the lease row (PostgreSQL: the row lock; SQLite: the write
// lock) until it commits: a takeover waits for that commit, then takes the next token, and the
// poll is committed. `committing` is set before the commit; the Acquire returning earlier fails.
TEST_P(LeaseContractTest, ATakeoverWaitsForAFencedPollInFlight) {
  const core::LeaseClaim a = Take(*store_, "a", kT0);
  std::optional<core::Store> other;
  Connect(other);
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok()) << tx.error().message;
  ASSERT_TRUE((*tx)->PutSourceMark("errors:listing", "w1", kT0 + kTtl).ok());
  ASSERT_TRUE((*tx)->FencePoll(kLease, a.lease.token, kT0 + kTtl).ok());

  std::atomic<bool> committing{false};
  bool committed_first = false;
  core::Result<core::LeaseClaim> taken = core::MakeError(ErrorCode::kInternal, "not run");
  std::thread b([&] {
    taken = other->leases().Acquire(kLease, "b", kT0 + kTtl + 1s, kTtl);
    committed_first = committing.load();
  });
  // Time for b to reach the lock (neither store shows a waiter to wait for); no assertion rests
  // on it, the takeover is right however late b gets there.
  std::this_thread::sleep_for(300ms);
  committing = true;
  ASSERT_TRUE((*tx)->Commit().ok());
  b.join();
  ASSERT_TRUE(taken.ok()) << taken.error().message;
  EXPECT_TRUE(committed_first) << "the takeover did not wait for the poll's commit";
  EXPECT_TRUE(taken->acquired);
  EXPECT_EQ(taken->lease.token, a.lease.token + 1);
  EXPECT_EQ(taken->lease.polled_at, kT0 + kTtl) << "the takeover sees the poll it waited for";
  EXPECT_EQ(Mark(*store_), std::optional<std::string>("w1"));
}

// Two connections race for one expired lease, round after round: exactly one holds it each
// round, and the tokens grow by one per round.
TEST_P(LeaseContractTest, OfTwoRacingConnectionsExactlyOneHolds) {
  std::optional<core::Store> other;
  Connect(other);
  core::Store* stores[2] = {&*store_, &*other};
  const int rounds = GetParam() == Backend::kPostgres ? 200 : 50;
  uint64_t last_token = 0;
  for (int round = 0; round < rounds; ++round) {
    // Every round is a lease later, so the last round's winner has expired; holders are new
    // each round, so no win is a renewal.
    const core::WallTime now = kT0 + round * (kTtl + 1s);
    std::latch start(2);
    core::Result<core::LeaseClaim> claims[2] = {core::MakeError(ErrorCode::kInternal, ""),
                                                core::MakeError(ErrorCode::kInternal, "")};
    std::vector<std::thread> racers;
    for (int i = 0; i < 2; ++i) {
      racers.emplace_back([&, i] {
        start.arrive_and_wait();
        claims[i] = stores[i]->leases().Acquire(
            kLease, "r" + std::to_string(round) + "-" + std::to_string(i), now, kTtl);
      });
    }
    for (std::thread& t : racers) t.join();
    ASSERT_TRUE(claims[0].ok()) << claims[0].error().message;
    ASSERT_TRUE(claims[1].ok()) << claims[1].error().message;
    ASSERT_NE(claims[0]->held, claims[1]->held) << "round " << round;
    const core::LeaseClaim& won = claims[0]->held ? *claims[0] : *claims[1];
    const core::LeaseClaim& lost = claims[0]->held ? *claims[1] : *claims[0];
    ASSERT_EQ(won.lease.token, last_token + 1) << "round " << round;
    EXPECT_EQ(lost.lease.holder, won.lease.holder) << "round " << round;
    EXPECT_EQ(lost.lease.token, won.lease.token) << "round " << round;
    last_token = won.lease.token;
  }
}

// A store as release 11 left it (migrations 1..11, a source mark in it) gains the lease
// tables on open and keeps its data.
TEST_P(LeaseContractTest, MigratesAVersionElevenStore) {
  TestStore old(GetParam());
  std::string script =
      "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL,"
      " applied_at BIGINT NOT NULL);";
  for (const store::Migration& m : store::Migrations()) {
    if (m.version > 11) break;
    script += GetParam() == Backend::kSqlite ? m.sqlite_sql : m.postgres_sql;
    script += "INSERT INTO schema_migrations VALUES (" + std::to_string(m.version) + ", '" +
              m.name + "', 7);";
  }
  script += "INSERT INTO source_marks VALUES ('errors:listing', 'w0', 7);";
  old.Query(script);
  ASSERT_EQ(old.Query("SELECT max(version) FROM schema_migrations"), "11");

  auto opened = old.Open();
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(old.Query("SELECT name FROM schema_migrations WHERE version = 12"), "poll leases");
  EXPECT_EQ(Mark(*opened), std::optional<std::string>("w0"));
  EXPECT_EQ(Take(*opened, "a", kT0).lease.token, 1u);
  core::InstanceSeen me{"h:1:z", "h", 1, "v", kT0, kT0};
  ASSERT_TRUE(opened->leases().SeeInstance(me, kT0 - 24h).ok());
  EXPECT_EQ(opened->leases().ListInstances()->size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, LeaseContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, LeaseContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
