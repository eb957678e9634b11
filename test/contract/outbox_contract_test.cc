// The dispatcher's side of the store (OutboxStore), on SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using core::OutboxOutcome;
using core::OutboxStatus;
using std::chrono::seconds;

constexpr core::Duration kLease = seconds(60);

std::vector<std::string> IdsOf(const std::vector<core::OutboxRow>& rows) {
  std::vector<std::string> ids;
  ids.reserve(rows.size());
  for (const auto& r : rows)
    ids.push_back(r.key + "/" + r.channel + "/" + std::to_string(r.version));
  return ids;
}

OutboxOutcome Outcome(OutboxOutcome::Kind kind, const core::OutboxRow& row) {
  OutboxOutcome o;
  o.kind = kind;
  o.idempotency_key = row.idempotency_key;
  return o;
}
OutboxOutcome Sent(const core::OutboxRow& row, std::string remote_id) {
  OutboxOutcome o = Outcome(OutboxOutcome::Kind::kSent, row);
  o.remote_message_id = std::move(remote_id);
  return o;
}
OutboxOutcome Reschedule(const core::OutboxRow& row, core::WallTime at, std::string error) {
  OutboxOutcome o = Outcome(OutboxOutcome::Kind::kReschedule, row);
  o.error = std::move(error);
  o.next_attempt_at = at;
  return o;
}
OutboxOutcome Dead(const core::OutboxRow& row, std::string error) {
  OutboxOutcome o = Outcome(OutboxOutcome::Kind::kDead, row);
  o.error = std::move(error);
  return o;
}

class OutboxContractTest : public StoreTest {
 protected:
  // Two dispatchers, each on its own connection.
  void SetUpStore() override {
    Connect(a_);
    Connect(b_);
  }

  void Insert(const std::vector<core::OutboxRow>& rows) {
    ASSERT_EQ(InsertRows(store_->incidents(), rows), "");
  }

  std::vector<core::OutboxRow> Claim(core::OutboxStore& store, const std::string& owner,
                                     core::WallTime now, size_t limit = 100) {
    auto rows = store.ClaimDue(owner, now, kLease, limit);
    EXPECT_TRUE(rows.ok()) << rows.error().message;
    return rows.ok() ? *rows : std::vector<core::OutboxRow>{};
  }

  std::vector<bool> Record(core::OutboxStore& store, const std::string& owner,
                           const std::vector<OutboxOutcome>& outcomes, core::WallTime now) {
    auto statuses = store.RecordOutcomes(owner, outcomes, now);
    EXPECT_TRUE(statuses.ok()) << statuses.error().message;
    std::vector<bool> ok;
    if (!statuses.ok()) return ok;
    for (const core::Status& s : *statuses) {
      if (!s) {
        EXPECT_EQ(s.error().code, core::ErrorCode::kConflict) << s.error().message;
      }
      ok.push_back(s.ok());
    }
    return ok;
  }

  core::OutboxRow Find(const std::string& idempotency_key) {
    auto rows = store_->incidents().ListOutbox(std::nullopt);
    EXPECT_TRUE(rows.ok());
    for (const auto& r : *rows) {
      if (r.idempotency_key == idempotency_key) return r;
    }
    ADD_FAILURE() << "no row " << idempotency_key;
    return {};
  }

  std::optional<core::Store> a_;
  std::optional<core::Store> b_;
  const core::WallTime t0_ = OutboxEpoch();
};

TEST_P(OutboxContractTest, ClaimsDueRowsInOrderAndCountsTheClaimNotTheAttempt) {
  Insert({PendingRow("k2", 1, 1, "slack", t0_), PendingRow("k1", 1, 1, "webhook", t0_),
          PendingRow("k1", 1, 1, "email", t0_ - seconds(5)),
          PendingRow("k3", 1, 1, "slack", t0_ + seconds(1))});  // not due yet
  const auto rows = Claim(a_->outbox(), "a", t0_);
  EXPECT_EQ(IdsOf(rows), (std::vector<std::string>{"k1/email/1", "k1/webhook/1", "k2/slack/1"}));
  for (const auto& r : rows) {
    EXPECT_EQ(r.status, OutboxStatus::kInFlight);
    EXPECT_EQ(r.lease_owner, "a");
    EXPECT_EQ(r.lease_expires_at, t0_ + kLease);
    EXPECT_EQ(r.attempts, 0u);  // counted when its outcome is recorded
    EXPECT_EQ(r.claims, 1u);
    EXPECT_EQ(r.payload, R"({"key":")" + r.key + "\"}");
  }
  EXPECT_EQ(Find(rows[0].idempotency_key).status, OutboxStatus::kInFlight);
  EXPECT_EQ(IdsOf(Claim(b_->outbox(), "b", t0_ + seconds(1))),
            (std::vector<std::string>{"k3/slack/1"}));
}

TEST_P(OutboxContractTest, ClaimStopsAtTheLimitInOrder) {
  std::vector<core::OutboxRow> rows;
  rows.reserve(10);
  for (int k = 9; k >= 0; --k) rows.push_back(PendingRow("k" + std::to_string(k), 1, 1, "c", t0_));
  Insert(rows);
  EXPECT_EQ(IdsOf(Claim(a_->outbox(), "a", t0_, 3)),
            (std::vector<std::string>{"k0/c/1", "k1/c/1", "k2/c/1"}));
  EXPECT_EQ(IdsOf(Claim(b_->outbox(), "b", t0_, 2)),
            (std::vector<std::string>{"k3/c/1", "k4/c/1"}));
  EXPECT_TRUE(Claim(a_->outbox(), "a", t0_, 0).empty());
}

TEST_P(OutboxContractTest, ClaimTakesTheEarliestDueRowsFirstAndPassesOverTheBacklogNotYetDue) {
  // A backlog backing off sorts first by key; a claim reads by due time, so it neither walks
  // the backlog nor lets it decide which due rows go first.
  std::vector<core::OutboxRow> rows;
  for (int k = 0; k < 20; ++k) {
    rows.push_back(PendingRow("a-backlog-" + std::to_string(k), 1, 1, "c", t0_ + seconds(30)));
  }
  rows.push_back(PendingRow("k0", 1, 1, "c", t0_));
  rows.push_back(PendingRow("k1", 1, 1, "c", t0_ - seconds(10)));
  rows.push_back(PendingRow("k2", 1, 1, "c", t0_ - seconds(5)));
  Insert(rows);
  const auto first = Claim(a_->outbox(), "a", t0_, 2);
  ASSERT_EQ(IdsOf(first), (std::vector<std::string>{"k1/c/1", "k2/c/1"}));
  EXPECT_EQ(Record(a_->outbox(), "a", {Sent(first[0], "m1"), Sent(first[1], "m2")}, t0_),
            (std::vector<bool>{true, true}));
  const auto expiring = Claim(a_->outbox(), "a", t0_, 1);
  EXPECT_EQ(IdsOf(expiring), (std::vector<std::string>{"k0/c/1"}));
  // A dead holder's rows, their lease over, go before rows that fell due meanwhile.
  EXPECT_EQ(IdsOf(Claim(b_->outbox(), "b", t0_ + kLease, 1)), (std::vector<std::string>{"k0/c/1"}));
  EXPECT_EQ(Claim(b_->outbox(), "b", t0_ + kLease, 100).size(), 20u);
}

TEST_P(OutboxContractTest, AnExpiredLeaseIsReclaimedWithTheSameKeyAndOneMoreClaim) {
  Insert({PendingRow("k", 1, 1, "c", t0_)});
  const auto first = Claim(a_->outbox(), "a", t0_);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(Claim(b_->outbox(), "b", t0_ + kLease - seconds(1)).empty())
      << "the lease still holds";
  const auto second = Claim(b_->outbox(), "b", t0_ + kLease);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].idempotency_key, first[0].idempotency_key);
  EXPECT_EQ(second[0].attempts, 0u);
  EXPECT_EQ(second[0].claims, 2u);
  EXPECT_EQ(second[0].lease_owner, "b");
  // The first owner's late answer changes nothing: the row is b's now.
  EXPECT_EQ(Record(a_->outbox(), "a", {Sent(first[0], "late")}, t0_ + kLease),
            std::vector<bool>{false});
  EXPECT_EQ(Find(first[0].idempotency_key).status, OutboxStatus::kInFlight);
  EXPECT_EQ(Record(b_->outbox(), "b", {Sent(second[0], "m-1")}, t0_ + kLease),
            std::vector<bool>{true});
  const auto row = Find(first[0].idempotency_key);
  EXPECT_EQ(row.status, OutboxStatus::kSent);
  EXPECT_EQ(row.remote_message_id, "m-1");
  EXPECT_EQ(row.attempts, 1u) << "one send recorded; the late answer counted nothing";
  EXPECT_EQ(row.lease_owner, "");
  EXPECT_FALSE(row.lease_expires_at.has_value());
}

TEST_P(OutboxContractTest, TwoOwnersClaimDisjointRows) {
  std::vector<core::OutboxRow> rows;
  rows.reserve(6);
  for (int k = 0; k < 6; ++k) rows.push_back(PendingRow("k" + std::to_string(k), 1, 1, "c", t0_));
  Insert(rows);
  const auto a = IdsOf(Claim(a_->outbox(), "a", t0_, 4));
  const auto b = IdsOf(Claim(b_->outbox(), "b", t0_, 4));
  EXPECT_EQ(a.size(), 4u);
  EXPECT_EQ(b, (std::vector<std::string>{"k4/c/1", "k5/c/1"}));
  EXPECT_TRUE(Claim(a_->outbox(), "a", t0_ + seconds(59)).empty());
}

TEST_P(OutboxContractTest, NoRowIsLeasedWhileAnOlderSiblingIsUndelivered) {
  Insert({PendingRow("k", 1, 1, "c", t0_), PendingRow("k", 1, 2, "c", t0_),
          PendingRow("k", 2, 1, "c", t0_), PendingRow("k", 1, 2, "other", t0_)});
  auto v1 = Claim(a_->outbox(), "a", t0_);
  // One row per (key, channel): the oldest.
  EXPECT_EQ(IdsOf(v1), (std::vector<std::string>{"k/c/1", "k/other/2"}));
  EXPECT_TRUE(Claim(b_->outbox(), "b", t0_).empty()) << "the older row is in flight";
  // Backing off keeps the younger rows waiting too.
  EXPECT_EQ(Record(a_->outbox(), "a", {Reschedule(v1[0], t0_ + seconds(30), "503")}, t0_),
            std::vector<bool>{true});
  EXPECT_TRUE(Claim(b_->outbox(), "b", t0_ + seconds(10)).empty()) << "the older row is pending";
  v1 = Claim(b_->outbox(), "b", t0_ + seconds(30));
  ASSERT_EQ(IdsOf(v1), std::vector<std::string>{"k/c/1"});
  EXPECT_EQ(v1[0].attempts, 1u);
  EXPECT_EQ(Record(b_->outbox(), "b", {Sent(v1[0], "m1")}, t0_ + seconds(30)),
            std::vector<bool>{true});
  const auto v2 = Claim(a_->outbox(), "a", t0_ + seconds(30));
  ASSERT_EQ(IdsOf(v2), std::vector<std::string>{"k/c/2"});
  // A dead row is finished: it does not hold its younger siblings back.
  EXPECT_EQ(Record(a_->outbox(), "a", {Dead(v2[0], "400 bad request")}, t0_ + seconds(30)),
            std::vector<bool>{true});
  const auto g2 = Claim(a_->outbox(), "a", t0_ + seconds(30));
  ASSERT_EQ(g2.size(), 1u);
  EXPECT_EQ(g2[0].generation, 2u);
}

TEST_P(OutboxContractTest, RecordsAMixedBatchInOneCallEachAgainstItsLease) {
  Insert({PendingRow("a", 1, 1, "c", t0_), PendingRow("b", 1, 1, "c", t0_),
          PendingRow("c", 1, 1, "c", t0_), PendingRow("d", 1, 1, "c", t0_)});
  const auto mine = Claim(a_->outbox(), "a", t0_, 3);
  const auto theirs = Claim(b_->outbox(), "b", t0_, 3);
  ASSERT_EQ(mine.size(), 3u);
  ASSERT_EQ(theirs.size(), 1u);
  const core::WallTime now = t0_ + seconds(2);
  const std::vector<OutboxOutcome> outcomes = {
      Sent(mine[0], "remote-a"), Reschedule(mine[1], now + seconds(40), "503 busy"),
      Dead(mine[2], "400 invalid"), Sent(theirs[0], "not mine")};
  EXPECT_EQ(Record(a_->outbox(), "a", outcomes, now), (std::vector<bool>{true, true, true, false}));

  const auto sent = Find(mine[0].idempotency_key);
  EXPECT_EQ(sent.status, OutboxStatus::kSent);
  EXPECT_EQ(sent.remote_message_id, "remote-a");
  EXPECT_EQ(sent.updated_at, now);
  const auto retry = Find(mine[1].idempotency_key);
  EXPECT_EQ(retry.status, OutboxStatus::kPending);
  EXPECT_EQ(retry.last_error, "503 busy");
  EXPECT_EQ(retry.next_attempt_at, now + seconds(40));
  EXPECT_EQ(retry.lease_owner, "");
  EXPECT_EQ(retry.attempts, 1u);
  const auto dead = Find(mine[2].idempotency_key);
  EXPECT_EQ(dead.status, OutboxStatus::kDead);
  EXPECT_EQ(dead.last_error, "400 invalid");
  const auto other = Find(theirs[0].idempotency_key);
  EXPECT_EQ(other.status, OutboxStatus::kInFlight);
  EXPECT_EQ(other.lease_owner, "b");
  // Recording twice is a conflict too: the lease ended with the first outcome.
  EXPECT_EQ(Record(a_->outbox(), "a", {Sent(mine[0], "again")}, now), std::vector<bool>{false});
  EXPECT_EQ(Find(mine[0].idempotency_key).remote_message_id, "remote-a");
  // The rescheduled row comes back when due, with the same key.
  const auto again = Claim(b_->outbox(), "b", now + seconds(40));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].idempotency_key, mine[1].idempotency_key);
  EXPECT_EQ(again[0].attempts, 1u);
}

// More outcomes than one statement takes (the SQLite store writes a batch in chunks of up to
// 256 rows): each still applies against its own lease, in the order given; a key named twice
// applies once; every sent row supersedes its own older siblings.
TEST_P(OutboxContractTest, ABatchOfManyOutcomesAppliesEachAgainstItsOwnLeaseInOrder) {
  constexpr size_t kRows = 300;
  std::vector<core::OutboxRow> rows;
  for (size_t i = 0; i < kRows; ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "k%03zu", i);
    rows.push_back(PendingRow(key, 1, 2, "c", t0_));
  }
  Insert(rows);
  const auto mine = Claim(a_->outbox(), "a", t0_, kRows - 10);
  const auto theirs = Claim(b_->outbox(), "b", t0_, kRows);
  ASSERT_EQ(mine.size(), kRows - 10);
  ASSERT_EQ(theirs.size(), 10u);
  // Late writers: an older sibling of every tenth row of mine, pending behind it.
  std::vector<core::OutboxRow> older;
  for (size_t i = 0; i < mine.size(); i += 10)
    older.push_back(PendingRow(mine[i].key, 1, 1, "c", t0_));
  Insert(older);

  const core::WallTime now = t0_ + seconds(2);
  std::vector<OutboxOutcome> outcomes;
  std::vector<bool> expected;
  for (size_t i = 0; i < mine.size(); ++i) {
    if (i % 29 == 0) {  // theirs, interleaved: not this owner's lease
      outcomes.push_back(Sent(theirs[i / 29], "not mine"));
      expected.push_back(false);
    }
    const core::OutboxRow& row = mine[i];
    outcomes.push_back(i % 10 == 0  ? Sent(row, "m" + std::to_string(i))
                       : i % 3 == 1 ? Reschedule(row, now + seconds(40), "503")
                       : i % 3 == 2 ? Dead(row, "400")
                                    : Sent(row, "m" + std::to_string(i)));
    expected.push_back(true);
  }
  outcomes.push_back(Sent(mine[7], "again"));  // named twice: the first applied
  expected.push_back(false);
  EXPECT_EQ(Record(a_->outbox(), "a", outcomes, now), expected);

  for (size_t i = 0; i < mine.size(); ++i) {
    const core::OutboxRow row = Find(mine[i].idempotency_key);
    if (i % 10 == 0 || i % 3 == 0) {
      EXPECT_EQ(row.status, OutboxStatus::kSent) << i;
      EXPECT_EQ(row.remote_message_id, "m" + std::to_string(i));
    } else if (i % 3 == 1) {
      EXPECT_EQ(row.status, OutboxStatus::kPending) << i;
      EXPECT_EQ(row.next_attempt_at, now + seconds(40));
      EXPECT_EQ(row.attempts, 1u);
    } else {
      EXPECT_EQ(row.status, OutboxStatus::kDead) << i;
      EXPECT_EQ(row.last_error, "400");
    }
    EXPECT_EQ(row.lease_owner, "");
  }
  for (const core::OutboxRow& row : theirs) {
    EXPECT_EQ(Find(row.idempotency_key).status, OutboxStatus::kInFlight);
    EXPECT_EQ(Find(row.idempotency_key).lease_owner, "b");
  }
  for (const core::OutboxRow& row : older) {
    EXPECT_EQ(Find(row.idempotency_key).status, OutboxStatus::kSuperseded) << row.key;
  }
  // One attempt per applied outcome, numbered by the row's claims, saying what became of it.
  EXPECT_EQ(test_store_->Query("SELECT count(*) FROM delivery_attempts"),
            std::to_string(mine.size()));
  EXPECT_EQ(test_store_->Query("SELECT count(*) FROM delivery_attempts WHERE attempt = 1"),
            std::to_string(mine.size()));
  EXPECT_EQ(test_store_->Query("SELECT outcome || ' ' || detail FROM delivery_attempts WHERE"
                               " idempotency_key = '" +
                               mine[7].idempotency_key + "'"),
            "failed 503");
}

TEST_P(OutboxContractTest, ASentRowSupersedesItsOlderPendingSiblingsWhichNeverSend) {
  // The younger row was leased before the older one arrived (a late writer).
  Insert({PendingRow("k", 1, 2, "c", t0_)});
  const auto young = Claim(a_->outbox(), "a", t0_);
  ASSERT_EQ(young.size(), 1u);
  Insert({PendingRow("k", 1, 1, "c", t0_), PendingRow("k", 1, 1, "other", t0_)});
  EXPECT_EQ(Record(a_->outbox(), "a", {Sent(young[0], "m2")}, t0_), std::vector<bool>{true});
  EXPECT_EQ(Find(PendingRow("k", 1, 1, "c", t0_).idempotency_key).status,
            OutboxStatus::kSuperseded);
  EXPECT_EQ(Find(PendingRow("k", 1, 1, "other", t0_).idempotency_key).status,
            OutboxStatus::kPending)
      << "another channel's row is its own";
  // Superseded rows are never claimed, and one inserted after the send goes in superseded.
  Insert({PendingRow("k", 0, 9, "c", t0_)});
  EXPECT_EQ(IdsOf(Claim(b_->outbox(), "b", t0_ + seconds(600))),
            std::vector<std::string>{"k/other/1"});
  EXPECT_EQ(Find(PendingRow("k", 0, 9, "c", t0_).idempotency_key).status,
            OutboxStatus::kSuperseded);
}

TEST_P(OutboxContractTest, AnExpiredLeaseOnARowOlderThanASentSiblingIsNotResent) {
  Insert({PendingRow("k", 1, 1, "c", t0_), PendingRow("k", 1, 2, "c", t0_)});
  const auto old = Claim(a_->outbox(), "a", t0_);
  ASSERT_EQ(IdsOf(old), std::vector<std::string>{"k/c/1"});
  // Another path delivered the newer row meanwhile (the port cannot do this; SQL can).
  test_store_->Query("UPDATE outbox SET status = 'sent' WHERE version = 2");
  EXPECT_TRUE(Claim(b_->outbox(), "b", t0_ + kLease + seconds(1)).empty());
}

TEST_P(OutboxContractTest, ShadowConditionsWriteRowsThatAreNeverClaimed) {
  jsonl::JsonPayloadEncoder encoder;
  NullSink sink;
  auto apply = [&](const std::string& key, const std::string& condition, bool shadow) {
    app::ApplyOptions options;
    options.channels = {"slack", "email"};
    options.shadow = shadow;
    app::PollApplier applier(store_->incidents(), encoder, options);
    core::Observation observation;
    observation.key = key;
    observation.at = t0_;
    observation.health = core::Health::kUnhealthy;
    observation.condition = condition;
    const std::vector<core::Observation> poll = {observation};
    app::VectorObservationStream stream(poll);
    auto applied = applier.Apply(stream, "poll-" + condition, t0_, sink);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
    EXPECT_EQ(applied->poll.outbox_rows, 2u);
  };
  apply("trial:1", "trial", true);
  apply("live:1", "live", false);
  auto shadow = store_->incidents().ListOutbox(OutboxStatus::kShadow);
  ASSERT_TRUE(shadow.ok());
  EXPECT_EQ(IdsOf(*shadow), (std::vector<std::string>{"trial:1/email/1", "trial:1/slack/1"}));
  const auto live = Claim(a_->outbox(), "a", t0_ + std::chrono::hours(24));
  EXPECT_EQ(IdsOf(live), (std::vector<std::string>{"live:1/email/1", "live:1/slack/1"}));
  ASSERT_EQ(Record(a_->outbox(), "a", {Sent(live[0], "m"), Sent(live[1], "n")}, t0_),
            (std::vector<bool>{true, true}));
  EXPECT_TRUE(Claim(b_->outbox(), "b", t0_ + std::chrono::hours(48)).empty());
  EXPECT_EQ(store_->incidents().ListOutbox(OutboxStatus::kShadow)->size(), 2u);
}

TEST_P(OutboxContractTest, SentTimesListsOneChannelsSendsSinceATime) {
  Insert({PendingRow("a", 1, 1, "sms", t0_), PendingRow("b", 1, 1, "sms", t0_),
          PendingRow("c", 1, 1, "sms", t0_), PendingRow("d", 1, 1, "email", t0_),
          PendingRow("e", 1, 1, "sms", t0_)});
  const auto rows = Claim(a_->outbox(), "a", t0_);
  ASSERT_EQ(rows.size(), 5u);  // a b c d(email) e, in key order
  ASSERT_EQ(Record(a_->outbox(), "a", {Sent(rows[2], "c"), Sent(rows[3], "d")}, t0_ + seconds(30)),
            (std::vector<bool>{true, true}));
  ASSERT_EQ(Record(a_->outbox(), "a", {Sent(rows[0], "a")}, t0_ + seconds(10)),
            std::vector<bool>{true});
  ASSERT_EQ(Record(a_->outbox(), "a", {Sent(rows[1], "b")}, t0_ + seconds(20)),
            std::vector<bool>{true});
  ASSERT_EQ(Record(a_->outbox(), "a", {Dead(rows[4], "no")}, t0_ + seconds(25)),
            std::vector<bool>{true});
  auto times = a_->outbox().SentTimes("sms", t0_ + seconds(20));
  ASSERT_TRUE(times.ok()) << times.error().message;
  EXPECT_EQ(*times, (std::vector<core::WallTime>{t0_ + seconds(20), t0_ + seconds(30)}));
  EXPECT_EQ(a_->outbox().SentTimes("sms", t0_)->size(), 3u);
  EXPECT_TRUE(a_->outbox().SentTimes("pager", t0_)->empty());
}

TEST_P(OutboxContractTest, ThreadRemoteIdIsTheFirstSentMessageOfTheGeneration) {
  Insert({PendingRow("k", 1, 1, "slack", t0_), PendingRow("k", 1, 3, "slack", t0_)});
  EXPECT_EQ(*a_->outbox().ThreadRemoteId("k", 1, "slack"), "");
  auto open = Claim(a_->outbox(), "a", t0_);
  ASSERT_EQ(Record(a_->outbox(), "a", {Sent(open[0], "ts-1")}, t0_), std::vector<bool>{true});
  auto next = Claim(a_->outbox(), "a", t0_);
  ASSERT_EQ(Record(a_->outbox(), "a", {Sent(next[0], "ts-3")}, t0_), std::vector<bool>{true});
  EXPECT_EQ(*a_->outbox().ThreadRemoteId("k", 1, "slack"), "ts-1");
  EXPECT_EQ(*a_->outbox().ThreadRemoteId("k", 2, "slack"), "");
  EXPECT_EQ(*a_->outbox().ThreadRemoteId("k", 1, "email"), "");
}

TEST_P(OutboxContractTest, ADeferralReturnsTheRowWithoutUsingAnAttempt) {
  Insert({PendingRow("k", 1, 1, "sms", t0_)});
  auto rows = Claim(a_->outbox(), "a", t0_);
  ASSERT_EQ(rows.size(), 1u);
  OutboxOutcome defer = Outcome(OutboxOutcome::Kind::kDefer, rows[0]);
  defer.error = "deferred: quiet hours until 07:00";
  defer.next_attempt_at = t0_ + std::chrono::hours(2);
  ASSERT_EQ(Record(a_->outbox(), "a", {defer}, t0_), std::vector<bool>{true});
  const core::OutboxRow after = Find(rows[0].idempotency_key);
  EXPECT_EQ(after.status, OutboxStatus::kPending);
  EXPECT_EQ(after.attempts, 0u);
  EXPECT_EQ(after.last_error, defer.error);
  EXPECT_TRUE(Claim(a_->outbox(), "a", t0_ + std::chrono::hours(1)).empty());
  EXPECT_EQ(Claim(a_->outbox(), "a", t0_ + std::chrono::hours(2)).size(), 1u);
}

TEST_P(OutboxContractTest, TheBudgetCountsEachTenantChannelAndWindowAcrossTransactions) {
  const core::WallTime w1 = t0_;
  const core::WallTime w2 = t0_ + std::chrono::hours(1);
  std::vector<bool> admitted;
  for (int round = 0; round < 2; ++round) {
    auto tx = store_->incidents().Begin();
    ASSERT_TRUE(tx.ok()) << tx.error().message;
    for (int i = 0; i < 2; ++i) admitted.push_back(*(*tx)->AdmitToBudget("acme", "ops", w1, 3));
    admitted.push_back(*(*tx)->AdmitToBudget("acme", "pager", w1, 3));
    admitted.push_back(*(*tx)->AdmitToBudget("beta", "ops", w1, 3));
    admitted.push_back(*(*tx)->AdmitToBudget("acme", "ops", w2, 3));
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  // acme/ops/w1 took numbers 1..4: the fourth is over a budget of 3.
  EXPECT_EQ(admitted, (std::vector<bool>{true, true, true, true, true,  //
                                         true, false, true, true, true}));
  auto rolled_back = store_->incidents().Begin();
  ASSERT_TRUE(rolled_back.ok());
  EXPECT_FALSE(*(*rolled_back)->AdmitToBudget("acme", "ops", w1, 3));
  rolled_back->reset();  // no commit: the count is not kept
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok());
  EXPECT_TRUE(*(*tx)->AdmitToBudget("acme", "pager", w1, 3));  // third on pager
  EXPECT_FALSE(*(*tx)->AdmitToBudget("acme", "pager", w1, 3));
}

TEST_P(OutboxContractTest, FoldedRowsAreTheTenantsFoldedRowsOfTheWindowAndAreNeverClaimed) {
  std::vector<core::OutboxRow> rows = {
      PendingRow("acme:a", 1, 1, "ops", t0_), PendingRow("acme:b", 1, 1, "ops", t0_),
      PendingRow("acme:c", 1, 1, "pager", t0_), PendingRow("acmex:d", 1, 1, "ops", t0_),
      PendingRow("acme:e", 1, 1, "ops", t0_)};
  for (auto& row : rows) row.status = OutboxStatus::kFolded;
  rows[1].created_at = t0_ + seconds(5);
  rows[4].created_at = t0_ + std::chrono::hours(1);  // the next window
  Insert(rows);
  EXPECT_TRUE(Claim(a_->outbox(), "a", t0_ + std::chrono::hours(5)).empty());
  auto folded = a_->outbox().FoldedRows("ops", "acme", t0_, t0_ + std::chrono::hours(1));
  ASSERT_TRUE(folded.ok()) << folded.error().message;
  EXPECT_EQ(IdsOf(*folded), (std::vector<std::string>{"acme:a/ops/1", "acme:b/ops/1"}));
}

INSTANTIATE_TEST_SUITE_P(Sqlite, OutboxContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, OutboxContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
