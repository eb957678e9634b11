// One store suite, run against SQLite and PostgreSQL: every behaviour the port promises.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/store_common/schema.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/engine/operator_actions.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using core::DecisionKind;
using core::OutboxStatus;
using core::TransitionKind;

core::WallTime At(const std::string& text) { return *core::ParseRfc3339(text); }

class CollectingSink : public app::DecisionSink {
 public:
  void OnDecision(const core::Observation&, const core::Decision& decision) override {
    decisions.push_back(decision);
  }
  void Reset() override { decisions.clear(); }
  std::vector<core::Decision> decisions;
};

core::Observation Obs(const std::string& at, const std::string& key, core::Health health,
                      const std::string& evidence = "") {
  core::Observation o;
  o.key = key;
  o.at = At(at);
  o.health = health;
  o.condition = "errors";
  o.evidence = evidence;
  return o;
}

constexpr auto kBad = core::Health::kUnhealthy;
constexpr auto kGood = core::Health::kHealthy;

class StoreContractTest : public StoreTest {
 protected:
  core::Result<app::ApplySummary> Apply(std::vector<core::Observation> poll,
                                        const std::string& poll_id = "poll",
                                        app::ApplyOptions options = {},
                                        std::vector<core::Decision>* decisions = nullptr) {
    options.record_unchanged_poll = true;
    app::PollApplier applier(store_->incidents(), encoder_, options);
    app::VectorObservationStream stream(poll);
    CollectingSink sink;
    auto summary = applier.Apply(stream, poll_id, At("2026-12-02T12:00:00Z"), sink);
    if (decisions != nullptr) *decisions = sink.decisions;
    return summary;
  }

  // Sets one source mark in its own committed transaction.
  core::Status PutMark(const std::string& name, const std::string& value, core::WallTime now) {
    auto tx = store_->incidents().Begin();
    if (!tx) return tx.error();
    if (auto status = (*tx)->PutSourceMark(name, value, now); !status) return status;
    return (*tx)->Commit();
  }

  std::optional<std::string> Mark(const std::string& name) {
    auto mark = store_->incidents().GetSourceMark(name);
    EXPECT_TRUE(mark.ok()) << mark.error().message;
    return mark.ok() ? *mark : std::nullopt;
  }

  std::vector<core::OutboxRow> Outbox() {
    auto rows = store_->incidents().ListOutbox(std::nullopt);
    EXPECT_TRUE(rows.ok()) << rows.error().message;
    return rows.ok() ? *rows : std::vector<core::OutboxRow>{};
  }

  jsonl::JsonPayloadEncoder encoder_;
};

std::vector<std::string> Keys(const std::vector<core::Incident>& incidents) {
  std::vector<std::string> keys;
  for (const core::Incident& in : incidents) keys.push_back(in.key);
  return keys;
}

std::string Micros(core::WallTime t) { return std::to_string(t.time_since_epoch().count()); }

TEST_P(StoreContractTest, RecordsEachMigrationOnce) {
  auto again = test_store_->Open();
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(test_store_->Query("SELECT count(*) FROM schema_migrations"),
            std::to_string(store::Migrations().size()));
  EXPECT_EQ(test_store_->Query("SELECT max(version) FROM schema_migrations"),
            std::to_string(store::Migrations().back().version));
}

// A database as the previous release left it: migration 1 run as its Migrate() ran it, and
// rows in every table. Opening it must add migration 2 and keep every row usable.
TEST_P(StoreContractTest, MigratesAVersionOneDatabaseAndKeepsItsData) {
  TestStore old(GetParam());
  const store::Migration& v1 = store::Migrations()[0];
  // Every time is 09:00 (@t): "a" open, "r" resolved, one decision, poll and outbox row.
  std::string rows =
      "INSERT INTO incidents (key, condition, generation, status, version, opened_at,"
      " first_seen_at, last_seen_at, last_observed_at, last_notified_at, resolved_at,"
      " healthy_streak, event_count, renotify_count, flap_bits, flap_count, flapping, acked_at,"
      " acked_by, recent_evidence) VALUES"
      " ('a', 'errors', 1, 'open', 1, @t, @t, @t, @t, @t, NULL, 0, 1, 0, 0, 0, 0, NULL, '',"
      " '[{\"n\":1}]'),"
      " ('r', 'errors', 1, 'resolved', 2, @t, @t, @t, @t, @t, @t, 1, 1, 0, 0, 0, 0, NULL, '',"
      " '[]');"
      "INSERT INTO decisions VALUES ('a', 1, 1, 'old', @t, 'notify', 'open');"
      "INSERT INTO polls VALUES ('old', @t, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0);"
      "INSERT INTO outbox VALUES ('q1-old', 'a', 1, 1, 'open', 'default', '{}', 'pending', 0,"
      " @t, '', NULL, '', '', @t, @t);";
  const std::string t = Micros(At("2026-12-02T09:00:00Z"));
  for (size_t at = rows.find("@t"); at != std::string::npos; at = rows.find("@t", at)) {
    rows.replace(at, 2, t);
  }
  old.Query(std::string("CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY,"
                        " name TEXT NOT NULL, applied_at BIGINT NOT NULL);") +
            (GetParam() == Backend::kSqlite ? v1.sqlite_sql : v1.postgres_sql) +
            "INSERT INTO schema_migrations VALUES (1, '" + v1.name + "', 7);" + rows);

  auto opened = old.Open();
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  core::IncidentStore& store = opened->incidents();
  EXPECT_EQ(old.Query("SELECT count(*) FROM schema_migrations"),
            std::to_string(store::Migrations().size()));
  EXPECT_EQ(old.Query("SELECT name FROM schema_migrations WHERE version = 2"),
            store::Migrations()[1].name);
  EXPECT_EQ(old.Query("SELECT applied_at FROM schema_migrations WHERE version = 1"), "7");

  auto a = store.FindIncident("a");
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->recent_evidence, std::vector<std::string>{R"({"n":1})"});
  EXPECT_FALSE((*a)->held) << "rows from before migration 7 hold nothing";
  auto open = store.ListOpenIncidents("errors");
  ASSERT_TRUE(open.ok()) << open.error().message;
  EXPECT_EQ(Keys(*open), std::vector<std::string>{"a"}) << "the new index covers old rows";
  EXPECT_EQ(*store.CountDecisions(), 1u);
  EXPECT_EQ(*store.CountPolls(), 1u);
  EXPECT_EQ(store.ListOutbox(std::nullopt)->size(), 1u);
  EXPECT_FALSE(store.GetSourceMark("errors:listing")->has_value());

  // The old rows carry on: "a" is updated, "r" re-opens as generation 2.
  app::ApplyOptions options;
  options.source_marks = {{"errors:listing", "w1"}};
  app::PollApplier applier(store, encoder_, options);
  const std::vector<core::Observation> observations = {Obs("2026-12-02T09:05:00Z", "a", kBad),
                                                       Obs("2026-12-02T09:05:00Z", "r", kBad)};
  app::VectorObservationStream poll(observations);
  CollectingSink sink;
  ASSERT_TRUE(applier.Apply(poll, "new", At("2026-12-02T12:00:00Z"), sink).ok());
  EXPECT_EQ((*store.FindIncident("a"))->version, 2u);
  EXPECT_EQ((*store.FindIncident("r"))->generation, 2u);
  EXPECT_EQ(Keys(*store.ListOpenIncidents("errors")), (std::vector<std::string>{"a", "r"}));
  EXPECT_EQ(*store.GetSourceMark("errors:listing"), std::optional<std::string>("w1"));
}

TEST_P(StoreContractTest, RefusesASchemaNewerThanItKnows) {
  test_store_->Query(
      "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)");
  auto again = test_store_->Open();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, core::ErrorCode::kCorrupt);
  EXPECT_NE(again.error().message.find("newer than this quell"), std::string::npos);
}

TEST_P(StoreContractTest, AppliesAPollDurably) {
  std::vector<core::Decision> decisions;
  auto summary = Apply({Obs("2026-12-02T09:00:00Z", "a", kBad, R"({"n":1})"),
                        Obs("2026-12-02T09:00:00Z", "b", kGood)},
                       "p1", {}, &decisions);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  ASSERT_EQ(decisions.size(), 2u);
  EXPECT_EQ(decisions[0].kind, DecisionKind::kNotify);
  EXPECT_EQ(decisions[1].kind, DecisionKind::kIgnore);

  auto a = store_->incidents().FindIncident("a");
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->status, core::IncidentStatus::kOpen);
  EXPECT_EQ((*a)->generation, 1u);
  EXPECT_EQ((*a)->version, 1u);
  EXPECT_EQ((*a)->condition, "errors");
  EXPECT_EQ((*a)->recent_evidence, std::vector<std::string>{R"({"n":1})"});
  EXPECT_FALSE((*a)->held) << "rows from before migration 7 hold nothing";
  EXPECT_EQ((*a)->first_seen_at, At("2026-12-02T09:00:00Z"));
  auto b = store_->incidents().FindIncident("b");
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->has_value()) << "a healthy key that never opened keeps no row";

  auto rows = Outbox();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].idempotency_key, core::OutboxIdempotencyKey("a", 1, 1, "default"));
  EXPECT_EQ(rows[0].transition, TransitionKind::kOpen);
  EXPECT_EQ(rows[0].status, OutboxStatus::kPending);
  EXPECT_EQ(rows[0].channel, "default");
  EXPECT_NE(rows[0].payload.find(R"("transition":"open")"), std::string::npos);
  EXPECT_EQ(*store_->incidents().CountDecisions(), 1u);
  EXPECT_EQ(*store_->incidents().CountPolls(), 1u);
  EXPECT_EQ(test_store_->Query("SELECT n_ignore FROM polls WHERE poll_id = 'p1'"), "1");
}

TEST_P(StoreContractTest, ApplyingTheSamePollTwiceChangesNothing) {
  const std::vector<core::Observation> poll = {
      Obs("2026-12-02T09:00:00Z", "a", kBad), Obs("2026-12-02T09:01:00Z", "a", kGood),
      Obs("2026-12-02T09:02:00Z", "a", kGood), Obs("2026-12-02T09:03:00Z", "a", kGood),
      Obs("2026-12-02T09:04:00Z", "b", kBad)};
  ASSERT_TRUE(Apply(poll, "p1").ok());
  const auto before = Outbox();
  const auto decisions = *store_->incidents().CountDecisions();
  std::vector<core::Decision> second;
  auto summary = Apply(poll, "p1", {}, &second);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  for (const auto& d : second) EXPECT_EQ(d.kind, DecisionKind::kStale);
  EXPECT_FALSE(summary->poll_recorded);
  EXPECT_EQ(Outbox().size(), before.size());
  EXPECT_EQ(*store_->incidents().CountDecisions(), decisions);
  EXPECT_EQ(*store_->incidents().CountPolls(), 1u);
  EXPECT_EQ((*store_->incidents().FindIncident("a"))->version, 4u);
}

TEST_P(StoreContractTest, UnchangedKeysWriteNoRowsOnlyCounts) {
  std::vector<core::Observation> poll;
  for (int i = 0; i < 500; ++i)
    poll.push_back(Obs("2026-12-02T09:00:00Z", "k" + std::to_string(i), kGood));
  for (int i = 0; i < 100; ++i) {
    poll.push_back(Obs("2026-12-02T09:00:00Z", "u" + std::to_string(i), core::Health::kUnknown));
  }
  ASSERT_TRUE(Apply(poll, "healthy").ok());
  EXPECT_EQ(store_->incidents().ListIncidents()->size(), 0u);
  EXPECT_EQ(*store_->incidents().CountDecisions(), 0u);
  EXPECT_EQ(test_store_->Query("SELECT n_ignore FROM polls"), "500");
  EXPECT_EQ(test_store_->Query("SELECT n_unknown FROM polls"), "100");
}

TEST_P(StoreContractTest, ChunkedApplyMatchesOneChunk) {
  std::vector<core::Observation> poll;
  for (int t = 0; t < 5; ++t) {
    for (int k = 0; k < 7; ++k) {
      const bool bad = (t + k) % 3 != 0;
      poll.push_back(Obs("2026-12-02T09:0" + std::to_string(t) + ":00Z", "k" + std::to_string(k),
                         bad ? kBad : kGood));
    }
  }
  app::ApplyOptions tiny;
  tiny.chunk_observations = 3;
  tiny.policy.cooldown = std::chrono::minutes(2);
  tiny.policy.healthy_polls_to_close = 1;
  ASSERT_TRUE(Apply(poll, "chunked", tiny).ok());
  auto chunked = Outbox();

  TestStore other(GetParam());
  auto other_store = other.Open();
  ASSERT_TRUE(other_store.ok());
  app::ApplyOptions whole = tiny;
  whole.chunk_observations = 1000;
  app::PollApplier applier(other_store->incidents(), encoder_, whole);
  app::VectorObservationStream stream(poll);
  CollectingSink sink;
  ASSERT_TRUE(applier.Apply(stream, "whole", At("2026-12-02T12:00:00Z"), sink).ok());
  auto one = other_store->incidents().ListOutbox(std::nullopt);
  ASSERT_EQ(one->size(), chunked.size());
  for (size_t i = 0; i < chunked.size(); ++i) {
    EXPECT_EQ((*one)[i].idempotency_key, chunked[i].idempotency_key);
    EXPECT_EQ((*one)[i].payload, chunked[i].payload);
  }
  EXPECT_GT(chunked.size(), 7u);
}

TEST_P(StoreContractTest, RoundTripsEveryIncidentField) {
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok()) << tx.error().message;
  core::Incident in;
  in.key = "tenant:\"quoted\"\\slash,comma{brace}";
  in.condition = "cond";
  in.generation = 3;
  in.status = core::IncidentStatus::kResolved;
  in.version = 17;
  in.opened_at = At("2026-12-02T09:00:00.123456Z");
  in.first_seen_at = At("2026-12-01T09:00:00Z");
  in.last_seen_at = At("2026-12-02T09:10:00Z");
  in.last_observed_at = At("2026-12-02T09:20:00Z");
  in.last_notified_at = At("2026-12-02T09:05:00Z");
  in.resolved_at = At("2026-12-02T09:20:00Z");
  in.healthy_streak = 2;
  in.event_count = 40;
  in.renotify_count = 4;
  in.flap_history = core::FlapHistory(0x5a5a, 16);
  in.flapping = true;
  in.acked_at = At("2026-12-02T09:06:00Z");
  in.acked_by = "ops";
  in.recent_evidence = {R"({"msg":"a \"b\""})", "[1,2]"};
  in.held = true;
  in.held_until = At("2026-12-02T10:20:00.000001Z");
  in.labels = {{"stage", "answer \"q\"\\ \n\u2028é"}, {"tenant", "t1"}};
  in.unhealthy_streak = 2;
  in.upstream_count = 12;
  in.upstream_count_at_message = 9;
  in.upstream_count_since_previous_message = 4;
  in.evidence_fingerprint = 0xf00dfacecafe0001ULL;  // past INT64_MAX: a BIGINT's bits
  std::vector<core::IncidentWrite> writes = {{in, 0}};
  ASSERT_TRUE((*tx)->PutIncidents(writes).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  auto got = store_->incidents().FindIncident(in.key);
  ASSERT_TRUE(got.ok() && got->has_value()) << (got.ok() ? "" : got.error().message);
  const core::Incident& g = **got;
  EXPECT_EQ(g.key, in.key);
  EXPECT_EQ(g.generation, 3u);
  EXPECT_EQ(g.status, core::IncidentStatus::kResolved);
  EXPECT_EQ(g.version, 17u);
  EXPECT_EQ(g.opened_at, in.opened_at);
  EXPECT_EQ(g.resolved_at, in.resolved_at);
  EXPECT_EQ(g.healthy_streak, 2u);
  EXPECT_EQ(g.event_count, 40u);
  EXPECT_EQ(g.renotify_count, 4u);
  EXPECT_EQ(g.flap_history.bits(), 0x5a5au);
  EXPECT_EQ(g.flap_history.count(), 16u);
  EXPECT_TRUE(g.flapping);
  EXPECT_EQ(g.acked_at, in.acked_at);
  EXPECT_EQ(g.acked_by, "ops");
  EXPECT_EQ(g.recent_evidence, in.recent_evidence);
  EXPECT_TRUE(g.held);
  EXPECT_EQ(g.held_until, in.held_until);
  EXPECT_EQ(g.labels, in.labels);
  EXPECT_EQ(g.unhealthy_streak, 2u);
  EXPECT_EQ(g.upstream_count, std::optional<uint64_t>(12));
  EXPECT_EQ(g.upstream_count_at_message, std::optional<uint64_t>(9));
  EXPECT_EQ(g.upstream_count_since_previous_message, std::optional<uint64_t>(4));
  EXPECT_EQ(g.evidence_fingerprint, std::optional<uint64_t>(0xf00dfacecafe0001ULL));
  std::vector<core::Incident> many;
  ASSERT_TRUE(store_->incidents().FindIncidents(std::vector<std::string>{in.key}, many).ok());
  ASSERT_EQ(many.size(), 1U);
  EXPECT_EQ(many[0].evidence_fingerprint, in.evidence_fingerprint);

  // The update path writes the hold too: released, then held again without a bound.
  for (const bool held : {false, true}) {
    core::Incident next = **store_->incidents().FindIncident(in.key);
    const uint64_t expected = next.version++;
    next.held = held;
    next.held_until.reset();
    next.labels = {{"tenant", held ? "t3" : "t2"}};
    next.unhealthy_streak = held ? 1 : 0;
    next.upstream_count.reset();
    next.evidence_fingerprint = held ? std::optional<uint64_t>(7) : std::nullopt;
    auto update = store_->incidents().Begin();
    ASSERT_TRUE(update.ok());
    const std::vector<core::IncidentWrite> put = {{next, expected}};
    ASSERT_TRUE((*update)->PutIncidents(put).ok());
    ASSERT_TRUE((*update)->Commit().ok());
    const core::Incident back = **store_->incidents().FindIncident(in.key);
    EXPECT_EQ(back.held, held);
    EXPECT_FALSE(back.held_until.has_value());
    EXPECT_EQ(back.labels, next.labels);
    EXPECT_EQ(back.unhealthy_streak, next.unhealthy_streak);
    EXPECT_FALSE(back.upstream_count.has_value());
    EXPECT_EQ(back.evidence_fingerprint, next.evidence_fingerprint);
  }
}

// A pending key (failing, but not yet as many times in a row as it takes to open) must be
// observed by the next poll like an open one, or a healthy poll could never end its streak.
TEST_P(StoreContractTest, PendingKeysAreListedWithTheOpenOnesUntilHealthy) {
  app::ApplyOptions options;
  options.policy.unhealthy_polls_to_open = 2;
  ASSERT_TRUE(
      Apply({Obs("2026-12-02T09:00:00Z", "a", kBad), Obs("2026-12-02T09:00:00Z", "b", kBad)}, "p1",
            options)
          .ok());
  auto watched = store_->incidents().ListOpenIncidents("errors");
  ASSERT_TRUE(watched.ok()) << watched.error().message;
  EXPECT_EQ(Keys(*watched), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ((*watched)[0].status, core::IncidentStatus::kNone);
  EXPECT_EQ((*watched)[0].unhealthy_streak, 1u);
  EXPECT_TRUE(store_->incidents().ListOutbox(std::nullopt)->empty());

  // a fails again and opens; b is healthy and drops out of the list.
  ASSERT_TRUE(
      Apply({Obs("2026-12-02T09:01:00Z", "a", kBad), Obs("2026-12-02T09:01:00Z", "b", kGood)}, "p2",
            options)
          .ok());
  watched = store_->incidents().ListOpenIncidents("errors");
  ASSERT_TRUE(watched.ok()) << watched.error().message;
  EXPECT_EQ(Keys(*watched), (std::vector<std::string>{"a"}));
  EXPECT_EQ((*watched)[0].status, core::IncidentStatus::kOpen);
  EXPECT_EQ((*watched)[0].unhealthy_streak, 0u);
  EXPECT_EQ(store_->incidents().ListOutbox(std::nullopt)->size(), 1u);
  EXPECT_EQ(store_->incidents().FindIncident("b")->value().unhealthy_streak, 0u);
}

// A manual resolve's hold lasts until the key is seen healthy, so a poll must keep observing
// a held key: ListOpenIncidents returns it with the open ones, until the hold is released.
TEST_P(StoreContractTest, HeldIncidentsAreListedWithTheOpenOnesUntilReleased) {
  app::ApplyOptions options;
  ASSERT_TRUE(Apply({Obs("2026-12-02T09:00:00Z", "a", kBad), Obs("2026-12-02T09:00:00Z", "b", kBad),
                     Obs("2026-12-02T09:00:00Z", "c", kBad)},
                    "p1", options)
                  .ok());
  {
    core::Incident a = **store_->incidents().FindIncident("a");
    const uint64_t expected = a.version;
    ASSERT_TRUE(core::ResolveByHand(a, At("2026-12-02T09:01:00Z")).changed);
    auto tx = store_->incidents().Begin();
    ASSERT_TRUE(tx.ok());
    const std::vector<core::IncidentWrite> put = {{a, expected}};
    ASSERT_TRUE((*tx)->PutIncidents(put).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  auto watched = store_->incidents().ListOpenIncidents("errors");
  ASSERT_TRUE(watched.ok()) << watched.error().message;
  EXPECT_EQ(Keys(*watched), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ((*watched)[0].status, core::IncidentStatus::kResolved);
  EXPECT_TRUE((*watched)[0].held);

  // Still failing: recorded, not reopened, still listed. Then healthy: released, gone.
  ASSERT_TRUE(Apply({Obs("2026-12-02T09:02:00Z", "a", kBad)}, "p2", options).ok());
  const core::Incident still = **store_->incidents().FindIncident("a");
  EXPECT_EQ(still.generation, 1u);
  EXPECT_EQ(still.status, core::IncidentStatus::kResolved);
  EXPECT_EQ(still.last_seen_at, At("2026-12-02T09:02:00Z"));
  EXPECT_EQ(test_store_->Query("SELECT reason FROM decisions WHERE key = 'a' ORDER BY version"
                               " DESC LIMIT 1"),
            "manually_resolved");
  EXPECT_EQ(Keys(*store_->incidents().ListOpenIncidents("errors")),
            (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_TRUE(Apply({Obs("2026-12-02T09:03:00Z", "a", kGood)}, "p3", options).ok());
  EXPECT_FALSE((*store_->incidents().FindIncident("a"))->held);
  EXPECT_EQ(Keys(*store_->incidents().ListOpenIncidents("errors")),
            (std::vector<std::string>{"b", "c"}));
}

TEST_P(StoreContractTest, CompareAndSetRejectsAStaleVersionOrADuplicateInsert) {
  ASSERT_TRUE(Apply({Obs("2026-12-02T09:00:00Z", "a", kBad)}).ok());
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Savepoint().ok());
  core::Incident stale = **store_->incidents().FindIncident("a");
  stale.version = 5;
  std::vector<core::IncidentWrite> wrong_version = {{stale, 4}};
  auto lost = (*tx)->PutIncidents(wrong_version);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.error().code, core::ErrorCode::kConflict);
  ASSERT_TRUE((*tx)->RollbackToSavepoint().ok());
  std::vector<core::IncidentWrite> duplicate = {{stale, 0}};
  auto twin = (*tx)->PutIncidents(duplicate);
  ASSERT_FALSE(twin.ok());
  EXPECT_EQ(twin.error().code, core::ErrorCode::kConflict);
  ASSERT_TRUE((*tx)->RollbackToSavepoint().ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  EXPECT_EQ((*store_->incidents().FindIncident("a"))->version, 1u);
}

TEST_P(StoreContractTest, NeverInsertsATwinOutboxRow) {
  ASSERT_TRUE(Apply({Obs("2026-12-02T09:00:00Z", "a", kBad)}).ok());
  auto rows = Outbox();
  ASSERT_EQ(rows.size(), 1u);
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->InsertOutbox(rows).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  EXPECT_EQ(Outbox().size(), 1u);
}

TEST_P(StoreContractTest, SentTransitionSupersedesOlderPendingOnes) {
  app::ApplyOptions options;
  options.policy.healthy_polls_to_close = 1;
  ASSERT_TRUE(
      Apply({Obs("2026-12-02T09:00:00Z", "a", kBad), Obs("2026-12-02T09:01:00Z", "a", kGood),
             Obs("2026-12-02T09:02:00Z", "a", kBad)},
            "p1", options)
          .ok());
  auto rows = Outbox();
  ASSERT_EQ(rows.size(), 3u);  // open g1v1, resolve g1v2, open g2v3
  ASSERT_TRUE(store_->incidents()
                  .MarkSent(rows[1].idempotency_key, "remote-1", At("2026-12-02T12:01:00Z"))
                  .ok());
  rows = Outbox();
  EXPECT_EQ(rows[0].status, OutboxStatus::kSuperseded) << "a stale open must not page late";
  EXPECT_EQ(rows[1].status, OutboxStatus::kSent);
  EXPECT_EQ(rows[1].remote_message_id, "remote-1");
  EXPECT_EQ(rows[2].status, OutboxStatus::kPending) << "the newer generation still goes out";

  // A late writer inserting a transition older than the sent one stores it superseded.
  core::OutboxRow late = rows[0];
  late.version = 1;
  late.generation = 1;
  late.channel = "default";
  late.idempotency_key = core::OutboxIdempotencyKey("a", 1, 1, "late");
  late.status = OutboxStatus::kPending;
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok());
  std::vector<core::OutboxRow> insert = {late};
  ASSERT_TRUE((*tx)->InsertOutbox(insert).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  auto superseded = store_->incidents().ListOutbox(OutboxStatus::kSuperseded);
  ASSERT_TRUE(superseded.ok());
  EXPECT_EQ(superseded->size(), 1u) << "same (key, generation, version, channel) is a twin";
  EXPECT_EQ(store_->incidents().MarkSent("q1-unknown", "", At("2026-12-02T12:01:00Z")).error().code,
            core::ErrorCode::kNotFound);
}

TEST_P(StoreContractTest, RetentionPrunesOldDecisions) {
  ASSERT_TRUE(
      Apply({Obs("2026-11-01T09:00:00Z", "old", kBad), Obs("2026-12-02T11:00:00Z", "new", kBad)},
            "p1")
          .ok());
  EXPECT_EQ(*store_->incidents().CountDecisions(), 2u);
  app::ApplyOptions options;
  options.decision_retention = std::chrono::hours(24 * 7);
  auto summary = Apply({Obs("2026-12-02T11:30:00Z", "new", kBad)}, "p2", options);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->decisions_pruned, 1u);
  EXPECT_EQ(*store_->incidents().CountDecisions(), 2u);  // "new" twice; "old" pruned
  EXPECT_TRUE(store_->incidents().FindIncident("old")->has_value())
      << "retention trims the log only";
}

TEST_P(StoreContractTest, AFailedBatchLeavesNothingBehind) {
  // A stream that breaks half way: the transaction must roll back whole.
  class BrokenStream : public core::ObservationStream {
   public:
    core::Result<bool> Next(core::Observation& out) override {
      if (n_ == 3) return core::MakeError(core::ErrorCode::kInvalidArgument, "stdin:4: bad");
      out = Obs("2026-12-02T09:00:00Z", "k" + std::to_string(n_++), kBad);
      return true;
    }
    core::Status Rewind() override { return {}; }

   private:
    int n_ = 0;
  } stream;
  app::ApplyOptions options;
  options.chunk_observations = 2;
  options.source_marks = {{"errors:listing", "w1"}};
  app::PollApplier applier(store_->incidents(), encoder_, options);
  CollectingSink sink;
  auto summary = applier.Apply(stream, "broken", At("2026-12-02T12:00:00Z"), sink);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.error().code, core::ErrorCode::kInvalidArgument);
  EXPECT_EQ(store_->incidents().ListIncidents()->size(), 0u);
  EXPECT_EQ(Outbox().size(), 0u);
  EXPECT_EQ(*store_->incidents().CountDecisions(), 0u);
  EXPECT_EQ(Mark("errors:listing"), std::nullopt);
}

TEST_P(StoreContractTest, ListsOnlyTheOpenIncidentsOfOneConditionInKeyOrder) {
  app::ApplyOptions options;
  options.policy.healthy_polls_to_close = 1;
  core::Observation other = Obs("2026-12-02T09:00:00Z", "x", kBad);
  other.condition = "latency";
  // Byte order: "B" < "_z" < "a" < "a-1"; most locales order them differently.
  ASSERT_TRUE(
      Apply({Obs("2026-12-02T09:00:00Z", "a-1", kBad), Obs("2026-12-02T09:00:00Z", "a", kBad),
             Obs("2026-12-02T09:00:00Z", "_z", kBad), Obs("2026-12-02T09:00:00Z", "B", kBad),
             Obs("2026-12-02T09:00:00Z", "gone", kBad), Obs("2026-12-02T09:01:00Z", "gone", kGood),
             Obs("2026-12-02T09:00:00Z", "never", kGood), other},
            "p1", options)
          .ok());
  ASSERT_EQ((*store_->incidents().FindIncident("gone"))->status, core::IncidentStatus::kResolved);

  auto open = store_->incidents().ListOpenIncidents("errors");
  ASSERT_TRUE(open.ok()) << open.error().message;
  EXPECT_EQ(Keys(*open), (std::vector<std::string>{"B", "_z", "a", "a-1"}));
  for (const core::Incident& in : *open) {
    EXPECT_EQ(in.condition, "errors");
    EXPECT_EQ(in.status, core::IncidentStatus::kOpen);
    EXPECT_EQ(in.last_seen_at, At("2026-12-02T09:00:00Z"));
  }
  EXPECT_EQ(Keys(*store_->incidents().ListOpenIncidents("latency")), std::vector<std::string>{"x"});
  EXPECT_TRUE(store_->incidents().ListOpenIncidents("absent")->empty());

  // Leaving and re-entering the open set moves a key out of and back into the list.
  ASSERT_TRUE(
      Apply({Obs("2026-12-02T09:02:00Z", "gone", kBad), Obs("2026-12-02T09:02:00Z", "a", kGood)},
            "p2", options)
          .ok());
  EXPECT_EQ(Keys(*store_->incidents().ListOpenIncidents("errors")),
            (std::vector<std::string>{"B", "_z", "a-1", "gone"}));

  // A slice at a time, as a streamed poll reads them: the same keys in the same order.
  std::vector<std::string> sliced;
  std::string after;
  for (int slice = 0; slice < 10; ++slice) {
    auto some = store_->incidents().ListWatchedKeysAfter("errors", after, 3);
    ASSERT_TRUE(some.ok()) << some.error().message;
    for (const std::string& key : *some) sliced.push_back(key);
    if (some->size() < 3) break;
    after = some->back();
  }
  EXPECT_EQ(sliced, (std::vector<std::string>{"B", "_z", "a-1", "gone"}));
  EXPECT_EQ(*store_->incidents().ListWatchedKeysAfter("errors", "_z", 1),
            std::vector<std::string>{"a-1"});
}

// A poll's prediction reads a chunk's incidents together: the same rows FindIncident reads one
// by one, over every condition and state, missing keys left out, in byte order, across more
// keys than one statement of the SQLite store takes (256).
TEST_P(StoreContractTest, FindsManyIncidentsAtOnceInKeyOrder) {
  app::ApplyOptions options;
  options.policy.healthy_polls_to_close = 1;
  std::vector<core::Observation> poll;
  for (int i = 0; i < 300; ++i) {
    poll.push_back(Obs("2026-12-02T09:00:00Z", "k" + std::to_string(1000 + i), kBad, R"({"n":1})"));
  }
  core::Observation other = Obs("2026-12-02T09:00:00Z", "B", kBad);
  other.condition = "latency";
  poll.push_back(other);
  poll.push_back(Obs("2026-12-02T09:00:00Z", "_z", kBad));
  poll.push_back(Obs("2026-12-02T09:01:00Z", "_z", kGood));  // resolved
  ASSERT_TRUE(Apply(poll, "p1", options).ok());

  std::vector<std::string> keys = {"B", "_z", "absent"};
  for (int i = 0; i < 300; i += 2) keys.push_back("k" + std::to_string(1000 + i));
  keys.push_back("zz-absent");
  std::vector<core::Incident> found;
  found.push_back(core::Incident{});  // appended after what is there
  ASSERT_TRUE(store_->incidents().FindIncidents(keys, found).ok());
  ASSERT_EQ(found.size(), 1u + 2u + 150u);
  found.erase(found.begin());
  std::vector<std::string> expected = {"B", "_z"};
  for (int i = 0; i < 300; i += 2) expected.push_back("k" + std::to_string(1000 + i));
  EXPECT_EQ(Keys(found), expected);
  for (const core::Incident& incident : found) {
    auto one = store_->incidents().FindIncident(incident.key);
    ASSERT_TRUE(one.ok() && one->has_value()) << incident.key;
    EXPECT_EQ(incident.condition, (*one)->condition) << incident.key;
    EXPECT_EQ(incident.version, (*one)->version) << incident.key;
    EXPECT_EQ(incident.status, (*one)->status) << incident.key;
    EXPECT_EQ(incident.last_seen_at, (*one)->last_seen_at) << incident.key;
    EXPECT_EQ(incident.recent_evidence, (*one)->recent_evidence) << incident.key;
  }
  EXPECT_EQ(found[0].condition, "latency");
  EXPECT_EQ(found[1].status, core::IncidentStatus::kResolved);
  EXPECT_EQ(found[2].recent_evidence, std::vector<std::string>{R"({"n":1})"});

  std::vector<core::Incident> none;
  EXPECT_TRUE(store_->incidents().FindIncidents({}, none).ok());
  EXPECT_TRUE(none.empty());
}

TEST_P(StoreContractTest, OpenIncidentsAreReadThroughTheOpenIndex) {
  if (GetParam() == Backend::kSqlite) {
    // The adapter's statement says INDEXED BY incidents_open: Open fails if it cannot be used.
    EXPECT_EQ(test_store_->Query("SELECT count(*) FROM sqlite_master WHERE type = 'index'"
                                 " AND name = 'incidents_open'"),
              "1");
    return;
  }
  // The statement PgIncidentStore::ListOpenIncidents runs. With sequential scans off a tiny
  // table cannot hide an unusable index: each half must be read through its partial index (the
  // two are merged by a sort of the open and held rows only, never of the whole table).
  const std::string plan = test_store_->Query(
      "SET enable_seqscan = off; EXPLAIN (FORMAT JSON) SELECT * FROM (SELECT * FROM incidents"
      " WHERE condition"
      " = 'errors' AND status = 'open' UNION ALL SELECT * FROM incidents WHERE condition ="
      " 'errors' AND held = 1 AND status <> 'open') AS watched ORDER BY key COLLATE \"C\"");
  // One row: the whole plan as JSON.
  EXPECT_NE(plan.find(R"("Index Name": "incidents_open")"), std::string::npos) << plan;
  EXPECT_NE(plan.find(R"("Index Name": "incidents_held")"), std::string::npos) << plan;
  EXPECT_EQ(plan.find(R"("Node Type": "Seq Scan")"), std::string::npos) << plan;
}

TEST_P(StoreContractTest, SourceMarksRoundTripAndOverwrite) {
  EXPECT_EQ(Mark("errors:listing"), std::nullopt);
  const std::string odd = "2026-12-02T09:00:00.123456Z \"q\" \\ ,{} \u00e9";
  ASSERT_TRUE(PutMark("errors:listing", odd, At("2026-12-02T12:00:00Z")).ok());
  EXPECT_EQ(Mark("errors:listing"), odd);
  EXPECT_EQ(test_store_->Query("SELECT updated_at FROM source_marks"),
            Micros(At("2026-12-02T12:00:00Z")));

  ASSERT_TRUE(PutMark("errors:listing", "t2", At("2026-12-02T12:05:00Z")).ok());
  EXPECT_EQ(Mark("errors:listing"), "t2");
  EXPECT_EQ(test_store_->Query("SELECT count(*) FROM source_marks"), "1");
  EXPECT_EQ(test_store_->Query("SELECT updated_at FROM source_marks"),
            Micros(At("2026-12-02T12:05:00Z")));
}

TEST_P(StoreContractTest, ARolledBackTransactionLeavesNoSourceMark) {
  ASSERT_TRUE(PutMark("errors:listing", "old", At("2026-12-02T12:00:00Z")).ok());
  {
    auto tx = store_->incidents().Begin();
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE((*tx)->PutSourceMark("errors:listing", "new", At("2026-12-02T12:01:00Z")).ok());
    ASSERT_TRUE((*tx)->PutSourceMark("errors:cursor", "c1", At("2026-12-02T12:01:00Z")).ok());
  }  // destroyed uncommitted: rolled back
  EXPECT_EQ(Mark("errors:listing"), "old");
  EXPECT_EQ(Mark("errors:cursor"), std::nullopt);
}

TEST_P(StoreContractTest, SourceMarksOfTwoConditionsAreIndependent) {
  ASSERT_TRUE(PutMark("errors:listing", "e1", At("2026-12-02T12:00:00Z")).ok());
  ASSERT_TRUE(PutMark("latency:listing", "l1", At("2026-12-02T12:00:00Z")).ok());
  ASSERT_TRUE(PutMark("errors:listing", "e2", At("2026-12-02T12:01:00Z")).ok());
  EXPECT_EQ(Mark("errors:listing"), "e2");
  EXPECT_EQ(Mark("latency:listing"), "l1");
  EXPECT_EQ(Mark("errors"), std::nullopt) << "names match whole, not by prefix";
}

TEST_P(StoreContractTest, ApplyMovesTheSourceMarkWithThePoll) {
  app::ApplyOptions options;
  options.source_marks = {{"errors:listing", "w1"}};
  ASSERT_TRUE(Apply({Obs("2026-12-02T09:00:00Z", "a", kBad)}, "p1", options).ok());
  EXPECT_EQ(Mark("errors:listing"), "w1");
  options.source_marks = {{"errors:listing", "w2"}};
  ASSERT_TRUE(Apply({}, "p2", options).ok());
  EXPECT_EQ(Mark("errors:listing"), "w2") << "a poll that changed nothing still moves its mark";
}

INSTANTIATE_TEST_SUITE_P(Sqlite, StoreContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, StoreContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
