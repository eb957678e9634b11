// An incident's timeline data on SQLite and PostgreSQL: the observation marks the poll applier
// writes (unknown and stale observations of open, pending or held incidents, nothing for healthy
// keys, nothing twice for a poll run again), the delivery attempts each recorded outcome adds
// (a retried send is two attempts under one idempotency key), their retention with the
// decisions, and the timeline read back (OperatorStore::ReadTimeline, app::OperatorQueries).
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/store_common/schema.h"
#include "quell/app/operator_queries.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/ports/operator_store.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using core::Health;
using core::OutboxOutcome;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

core::Observation Obs(const std::string& key, Health health, core::WallTime at) {
  core::Observation o;
  o.key = key;
  o.at = at;
  o.health = health;
  o.condition = "c";
  return o;
}

class TimelineContractTest : public StoreTest {
 protected:
  void SetUpStore() override { options_.channels = {"hook"}; }

  void Apply(const std::string& poll_id, const std::vector<core::Observation>& poll,
             core::WallTime now) {
    app::PollApplier applier(store_->incidents(), encoder_, options_);
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied = applier.Apply(stream, poll_id, now, sink);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
  }

  core::StoredTimeline Read(const std::string& key, size_t limit = 100) {
    auto timeline = store_->operators().ReadTimeline(key, limit);
    EXPECT_TRUE(timeline.ok()) << timeline.error().message;
    return timeline.ok() ? *timeline : core::StoredTimeline{};
  }

  std::string Count(const std::string& table) {
    return test_store_->Query("SELECT count(*) FROM " + table);
  }

  // Claims the key's due row and records `outcome` (its key filled in) at `at`.
  void Send(OutboxOutcome outcome, core::WallTime at) {
    auto rows = store_->outbox().ClaimDue("d", at, minutes(1), 10);
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 1u);
    outcome.idempotency_key = (*rows)[0].idempotency_key;
    auto statuses = store_->outbox().RecordOutcomes("d", {&outcome, 1}, at);
    ASSERT_TRUE(statuses.ok()) << statuses.error().message;
    ASSERT_TRUE((*statuses)[0].ok()) << (*statuses)[0].error().message;
  }

  static OutboxOutcome Failed(const std::string& error, core::WallTime retry_at,
                              bool throttled = false) {
    OutboxOutcome o;
    o.kind = OutboxOutcome::Kind::kReschedule;
    o.error = error;
    o.next_attempt_at = retry_at;
    o.throttled = throttled;
    return o;
  }

  app::ApplyOptions options_;
  jsonl::JsonPayloadEncoder encoder_;
  const core::WallTime t0_ = OutboxEpoch();
};

TEST_P(TimelineContractTest, MarksUnknownAndStaleObservationsOfAnOpenKeyOnly) {
  Apply("p1",
        {Obs("acme:db", Health::kUnhealthy, t0_), Obs("calm:db", Health::kHealthy, t0_),
         Obs("dark:db", Health::kUnknown, t0_)},
        t0_);
  // A failed poll: unknown for every key; only the open one is marked.
  const std::vector<core::Observation> p2 = {Obs("acme:db", Health::kUnknown, t0_ + minutes(1)),
                                             Obs("calm:db", Health::kUnknown, t0_ + minutes(1)),
                                             Obs("dark:db", Health::kUnknown, t0_ + minutes(1))};
  Apply("p2", p2, t0_ + minutes(1));
  // The same poll again adds nothing.
  Apply("p2", p2, t0_ + minutes(1));
  // A late observation (older than the last applied) is stale and marked with its own health;
  // one at the very time of the applied open repeats it and is not.
  Apply("p3",
        {Obs("acme:db", Health::kHealthy, t0_ - minutes(5)),
         Obs("acme:db", Health::kUnhealthy, t0_), Obs("calm:db", Health::kHealthy, t0_)},
        t0_ + minutes(2));

  EXPECT_EQ(Count("observation_marks"), "2");
  EXPECT_EQ(test_store_->Query("SELECT count(*) FROM observation_marks WHERE key <> 'acme:db'"),
            "0");
  const core::StoredTimeline timeline = Read("acme:db");
  ASSERT_EQ(timeline.marks.size(), 2u);
  EXPECT_EQ(timeline.marks[0].poll_id, "p3");
  EXPECT_EQ(timeline.marks[0].at, t0_ - minutes(5));
  EXPECT_EQ(timeline.marks[0].health, "healthy");
  EXPECT_EQ(timeline.marks[0].decision, "stale");
  EXPECT_EQ(timeline.marks[0].generation, 1u);
  EXPECT_EQ(timeline.marks[1].poll_id, "p2");
  EXPECT_EQ(timeline.marks[1].at, t0_ + minutes(1));
  EXPECT_EQ(timeline.marks[1].health, "unknown");
  EXPECT_EQ(timeline.marks[1].decision, "unknown");
  ASSERT_EQ(timeline.decisions.size(), 1u);
  EXPECT_EQ(timeline.decisions[0].decision, "notify");
  EXPECT_TRUE(Read("calm:db").marks.empty());
}

TEST_P(TimelineContractTest, MarksAPendingKeyButNotAResolvedOne) {
  options_.policy.unhealthy_polls_to_open = 2;
  options_.policy.healthy_polls_to_close = 1;
  Apply("p1", {Obs("slow:db", Health::kUnhealthy, t0_)}, t0_);  // pending, not open
  Apply("p2", {Obs("slow:db", Health::kUnknown, t0_ + minutes(1))}, t0_ + minutes(1));
  EXPECT_EQ(Count("observation_marks"), "1");

  options_.policy.unhealthy_polls_to_open = 1;
  Apply("p3", {Obs("gone:db", Health::kUnhealthy, t0_)}, t0_);
  Apply("p4", {Obs("gone:db", Health::kHealthy, t0_ + minutes(1))}, t0_ + minutes(1));
  Apply("p5", {Obs("gone:db", Health::kUnknown, t0_ + minutes(2))}, t0_ + minutes(2));
  EXPECT_TRUE(Read("gone:db").marks.empty());
  EXPECT_EQ(Read("slow:db").marks.size(), 1u);
}

TEST_P(TimelineContractTest, ARetriedSendIsTwoAttemptsUnderOneIdempotencyKey) {
  Apply("p1", {Obs("acme:db", Health::kUnhealthy, t0_)}, t0_);
  Send(Failed("HTTP 500 boom", t0_ + seconds(30)), t0_ + seconds(1));
  OutboxOutcome sent;
  sent.kind = OutboxOutcome::Kind::kSent;
  sent.remote_message_id = "msg-1";
  Send(sent, t0_ + seconds(31));

  const core::StoredTimeline timeline = Read("acme:db");
  ASSERT_EQ(timeline.attempts.size(), 2u);
  const core::LoggedAttempt& first = timeline.attempts[0];
  const core::LoggedAttempt& second = timeline.attempts[1];
  EXPECT_EQ(first.idempotency_key, second.idempotency_key);
  EXPECT_FALSE(first.idempotency_key.empty());
  EXPECT_EQ(first.attempt, 1u);
  EXPECT_EQ(second.attempt, 2u);
  EXPECT_EQ(first.outcome, "failed");
  EXPECT_EQ(first.detail, "HTTP 500 boom");
  EXPECT_EQ(first.at, t0_ + seconds(1));
  EXPECT_EQ(second.outcome, "sent");
  EXPECT_EQ(second.detail, "msg-1");
  EXPECT_EQ(second.at, t0_ + seconds(31));
  for (const core::LoggedAttempt& a : timeline.attempts) {
    EXPECT_EQ(a.channel, "hook");
    EXPECT_EQ(a.generation, 1u);
    EXPECT_EQ(a.transition, "open");
  }
}

TEST_P(TimelineContractTest, ThrottledDeferredAndDeadOutcomesAreAttemptsToo) {
  Apply("p1", {Obs("acme:db", Health::kUnhealthy, t0_)}, t0_);
  Send(Failed("HTTP 429", t0_ + seconds(10), true), t0_ + seconds(1));
  OutboxOutcome defer;
  defer.kind = OutboxOutcome::Kind::kDefer;
  defer.error = "quiet hours";
  defer.next_attempt_at = t0_ + seconds(20);
  Send(defer, t0_ + seconds(10));
  OutboxOutcome dead;
  dead.kind = OutboxOutcome::Kind::kDead;
  dead.error = "HTTP 400 bad";
  Send(dead, t0_ + seconds(20));

  const core::StoredTimeline timeline = Read("acme:db");
  ASSERT_EQ(timeline.attempts.size(), 3u);
  EXPECT_EQ(timeline.attempts[0].outcome, "throttled");
  EXPECT_EQ(timeline.attempts[1].outcome, "deferred");
  EXPECT_EQ(timeline.attempts[1].detail, "quiet hours");
  EXPECT_EQ(timeline.attempts[2].outcome, "dead");
  EXPECT_EQ(timeline.attempts[2].detail, "HTTP 400 bad");
  EXPECT_EQ(timeline.attempts[2].attempt, 3u);
  // An outcome for a lease this owner no longer holds records nothing.
  OutboxOutcome late;
  late.kind = OutboxOutcome::Kind::kSent;
  late.idempotency_key = timeline.attempts[0].idempotency_key;
  auto statuses = store_->outbox().RecordOutcomes("d", {&late, 1}, t0_ + seconds(30));
  ASSERT_TRUE(statuses.ok());
  EXPECT_FALSE((*statuses)[0].ok());
  EXPECT_EQ(Count("delivery_attempts"), "3");
}

TEST_P(TimelineContractTest, RetentionPrunesMarksAndAttemptsWithTheDecisions) {
  Apply("p1", {Obs("acme:db", Health::kUnhealthy, t0_)}, t0_);
  Apply("p2", {Obs("acme:db", Health::kUnknown, t0_ + minutes(1))}, t0_ + minutes(1));
  Send(Failed("HTTP 500", t0_ + minutes(2)), t0_ + minutes(1));
  Apply("p3", {Obs("acme:db", Health::kUnknown, t0_ + hours(2))}, t0_ + hours(2));
  ASSERT_EQ(Count("observation_marks"), "2");
  ASSERT_EQ(Count("delivery_attempts"), "1");

  options_.decision_retention = hours(1);
  Apply("p4", {Obs("acme:db", Health::kUnhealthy, t0_ + hours(2) + minutes(1))},
        t0_ + hours(2) + minutes(1));
  EXPECT_EQ(Count("decisions"), "1");  // p4's update_only
  EXPECT_EQ(Count("observation_marks"), "1");
  EXPECT_EQ(test_store_->Query("SELECT poll_id FROM observation_marks"), "p3");
  EXPECT_EQ(Count("delivery_attempts"), "0");
}

TEST_P(TimelineContractTest, TheTimelineMergesDecisionsAndMarksAndListsGenerations) {
  options_.policy.healthy_polls_to_close = 2;
  Apply("p1", {Obs("acme:db", Health::kUnhealthy, t0_)}, t0_);
  Apply("p2", {Obs("acme:db", Health::kHealthy, t0_ + minutes(1))}, t0_ + minutes(1));
  Apply("p3", {Obs("acme:db", Health::kUnknown, t0_ + minutes(2))}, t0_ + minutes(2));
  Apply("p4", {Obs("acme:db", Health::kHealthy, t0_ + minutes(3))}, t0_ + minutes(3));
  Apply("p5", {Obs("acme:db", Health::kUnhealthy, t0_ + minutes(4))}, t0_ + minutes(4));

  app::OperatorQueries queries(store_->incidents(), store_->operators());
  auto timeline = queries.Timeline("acme:db", 100);
  ASSERT_TRUE(timeline.ok()) << timeline.error().message;
  EXPECT_EQ(timeline->key, "acme:db");
  std::vector<std::string> strip;
  for (const app::TimelineObservation& o : timeline->observations) {
    strip.push_back(o.poll_id + " " + o.health + " " + o.decision + " " + o.reason + " " +
                    (o.version ? std::to_string(*o.version) : "-"));
  }
  EXPECT_EQ(strip,
            (std::vector<std::string>{"p1 unhealthy notify open 1", "p2 healthy wait_for_health  2",
                                      "p3 unknown unknown  -", "p4 healthy resolve  3",
                                      "p5 unhealthy notify open 4"}));
  ASSERT_EQ(timeline->generations.size(), 2u);
  EXPECT_EQ(timeline->generations[0].generation, 1u);
  EXPECT_EQ(timeline->generations[0].opened_at, t0_);
  EXPECT_EQ(timeline->generations[0].resolved_at, t0_ + minutes(3));
  EXPECT_EQ(timeline->generations[1].generation, 2u);
  EXPECT_EQ(timeline->generations[1].opened_at, t0_ + minutes(4));
  EXPECT_FALSE(timeline->generations[1].resolved_at.has_value());

  // Each list keeps its newest entries.
  auto newest = queries.Timeline("acme:db", 2);
  ASSERT_TRUE(newest.ok());
  ASSERT_EQ(newest->observations.size(), 2u);
  EXPECT_EQ(newest->observations[0].poll_id, "p4");
  EXPECT_EQ(newest->observations[1].poll_id, "p5");
  auto unknown = queries.Timeline("no:such:key", 10);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, core::ErrorCode::kNotFound);
}

// A database as the release before migration `version` left it.
std::string SchemaBefore(int64_t version, Backend backend) {
  std::string script =
      "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL,"
      " applied_at BIGINT NOT NULL);";
  for (const store::Migration& m : store::Migrations()) {
    if (m.version >= version) break;
    script += backend == Backend::kSqlite ? m.sqlite_sql : m.postgres_sql;
    script += "INSERT INTO schema_migrations VALUES (" + std::to_string(m.version) + ", 'old', 7);";
  }
  return script;
}

constexpr const char* kAttemptColumns =
    "INSERT INTO delivery_attempts (idempotency_key, attempt, key, channel, generation, at,"
    " outcome, detail) VALUES ";

// A database as the release before migration 20 left it (attempts keyed by idempotency key):
// opening it keeps every attempt, the timeline reads them, and a replayed (idempotency key,
// attempt) pair still adds nothing.
TEST_P(TimelineContractTest, MigrationTwentyKeepsEveryAttempt) {
  TestStore old(GetParam());
  std::string script = SchemaBefore(20, GetParam());
  const std::string attempt_columns = kAttemptColumns;
  script += attempt_columns + "('k1', 1, 'acme:db', 'hook', 1, 1000, 'failed', 'HTTP 500');";
  script += attempt_columns + "('k1', 2, 'acme:db', 'hook', 1, 2000, 'sent', '');";
  script += attempt_columns + "('k2', 1, 'acme:web', 'hook', 1, 1500, 'sent', '');";
  old.Query(script);

  auto opened = old.Open();
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(old.Query("SELECT max(version) FROM schema_migrations"),
            std::to_string(store::Migrations().back().version));
  EXPECT_EQ(old.Query("SELECT count(*) FROM delivery_attempts"), "3");
  auto timeline = opened->operators().ReadTimeline("acme:db", 100);
  ASSERT_TRUE(timeline.ok()) << timeline.error().message;
  ASSERT_EQ(timeline->attempts.size(), 2u);
  EXPECT_EQ(timeline->attempts[0].outcome, "failed");
  EXPECT_EQ(timeline->attempts[0].detail, "HTTP 500");
  EXPECT_EQ(timeline->attempts[1].attempt, 2u);
  old.Query(attempt_columns + "('k1', 2, 'acme:db', 'hook', 1, 3000, 'sent', '')" +
            " ON CONFLICT DO NOTHING");
  EXPECT_EQ(old.Query("SELECT count(*) FROM delivery_attempts"), "3");
  if (GetParam() == Backend::kPostgres) {  // the copied table's key keeps the name it had
    EXPECT_EQ(old.Query("SELECT conname FROM pg_constraint WHERE contype = 'p' AND"
                        " conrelid = 'delivery_attempts'::regclass"),
              "delivery_attempts_pkey");
  }
}

// A rolling restart on PostgreSQL: an instance of the release before migration 20 commits an
// outcome while a newer one copies delivery_attempts. The attempt must be in the table the copy
// leaves (SQLite's migrations hold the write lock from BEGIN IMMEDIATE: no writer runs during it).
TEST_P(TimelineContractTest, MigrationTwentyKeepsAnAttemptCommittedDuringTheCopy) {
  if (GetParam() != Backend::kPostgres) return;
  TestStore old(GetParam());
  old.Query(SchemaBefore(20, GetParam()) + kAttemptColumns +
            "('k1', 1, 'acme:db', 'hook', 1, 1000, 'sent', '');");
  PGconn* writer = PQconnectdb(old.url().c_str());
  ASSERT_EQ(PQstatus(writer), CONNECTION_OK) << PQerrorMessage(writer);
  const std::string in_flight = std::string("BEGIN;") + kAttemptColumns +
                                "('k2', 1, 'acme:web', 'hook', 1, 2000, 'sent', '')";
  PQclear(PQexec(writer, in_flight.c_str()));

  std::optional<core::Result<core::Store>> opened;
  std::atomic<bool> migrated = false;
  std::thread migrating([&] {
    opened.emplace(old.Open());
    migrated = true;
  });
  // Until the migration waits for the old instance's lock on the table (or ends without).
  while (!migrated && old.Query("SELECT count(*) FROM pg_locks WHERE NOT granted AND"
                                " relation = 'delivery_attempts'::regclass") == "0") {
  }
  PGresult* committed = PQexec(writer, "COMMIT");
  EXPECT_EQ(PQresultStatus(committed), PGRES_COMMAND_OK) << PQresultErrorMessage(committed);
  PQclear(committed);
  PQfinish(writer);
  migrating.join();
  ASSERT_TRUE(opened->ok()) << opened->error().message;
  EXPECT_EQ(old.Query("SELECT count(*) FROM delivery_attempts"), "2");
}

INSTANTIATE_TEST_SUITE_P(Sqlite, TimelineContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, TimelineContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
