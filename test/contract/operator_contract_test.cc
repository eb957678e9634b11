// The operator's side of the store (OperatorStore) and the use cases over it, on SQLite and
// PostgreSQL: silences, silenced poll rows, manual ack and resolve, dead-row retry and drop.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "../app/fake_clock.h"
#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/operator_commands.h"
#include "quell/app/poll_applier.h"
#include "quell/app/poller.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/delivery/dead_letter.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using core::OutboxStatus;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

class OperatorContractTest : public StoreTest {
 protected:
  void SetUpStore() override {
    Connect(dispatcher_);
    ops_ =
        std::make_unique<app::OperatorCommands>(store_->incidents(), store_->operators(), encoder_);
  }

  // Applies one observation of `key` as a poll routed to `channels`.
  app::ApplySummary Observe(const std::string& key, bool unhealthy, core::WallTime at,
                            std::vector<std::string> channels = {"slack", "email"}) {
    app::ApplyOptions options;
    options.channels = std::move(channels);
    options.policy.cooldown = minutes(10);
    options.policy.healthy_polls_to_close = 2;
    app::PollApplier applier(store_->incidents(), encoder_, options);
    core::Observation observation;
    observation.key = key;
    observation.at = at;
    observation.health = unhealthy ? core::Health::kUnhealthy : core::Health::kHealthy;
    observation.condition = "c";
    const std::vector<core::Observation> poll = {observation};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied = applier.Apply(stream, "poll-" + core::FormatRfc3339(at), at, sink);
    EXPECT_TRUE(applied.ok()) << applied.error().message;
    return applied.ok() ? *applied : app::ApplySummary{};
  }

  std::vector<core::OutboxRow> RowsOf(const std::string& key) {
    auto rows = store_->incidents().ListOutbox(std::nullopt);
    EXPECT_TRUE(rows.ok());
    std::vector<core::OutboxRow> out;
    for (const auto& r : *rows) {
      if (r.key == key) out.push_back(r);
    }
    return out;
  }

  // A row of `key` that went dead after one claim.
  core::OutboxRow DeadRow(const std::string& key, uint64_t version = 1,
                          const std::string& channel = "webhook") {
    core::OutboxRow row = PendingRow(key, 1, version, channel, t0_);
    EXPECT_EQ(InsertRows(store_->incidents(), {row}), "");
    auto claimed = dispatcher_->outbox().ClaimDue("d", t0_, seconds(60), 10);
    EXPECT_TRUE(claimed.ok());
    core::OutboxOutcome dead;
    dead.kind = core::OutboxOutcome::Kind::kDead;
    dead.idempotency_key = row.idempotency_key;
    dead.error = "HTTP 400";
    auto recorded = dispatcher_->outbox().RecordOutcomes("d", {&dead, 1}, t0_);
    EXPECT_TRUE(recorded.ok() && (*recorded)[0].ok());
    return row;
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

  std::optional<core::Store> dispatcher_;
  jsonl::JsonPayloadEncoder encoder_;
  std::unique_ptr<app::OperatorCommands> ops_;
  const core::WallTime t0_ = OutboxEpoch();
};

TEST_P(OperatorContractTest, SilencesAreListedByIdAndExpiredOnesLeftOut) {
  core::Silence a{0, "acme:*", t0_ + hours(2), "maintenance", "alice", t0_};
  core::Silence b{0, "beta:db", t0_ + minutes(5), "noisy", "bob", t0_};
  auto id_a = store_->operators().AddSilence(a);
  auto id_b = store_->operators().AddSilence(b);
  ASSERT_TRUE(id_a.ok() && id_b.ok()) << (id_a.ok() ? id_b.error() : id_a.error()).message;
  EXPECT_LT(*id_a, *id_b);

  auto all = store_->operators().ListSilences(std::nullopt);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, *id_a);
  EXPECT_EQ((*all)[0].pattern, "acme:*");
  EXPECT_EQ((*all)[0].expires_at, t0_ + hours(2));
  EXPECT_EQ((*all)[0].reason, "maintenance");
  EXPECT_EQ((*all)[0].created_by, "alice");
  EXPECT_EQ((*all)[0].created_at, t0_);

  auto active = store_->operators().ListSilences(t0_ + minutes(5));  // b expires exactly then
  ASSERT_TRUE(active.ok());
  ASSERT_EQ(active->size(), 1u);
  EXPECT_EQ((*active)[0].id, *id_a);

  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok());
  auto in_tx = (*tx)->LoadActiveSilences(t0_);
  ASSERT_TRUE(in_tx.ok()) << in_tx.error().message;
  EXPECT_EQ(in_tx->size(), 2u);
  tx->reset();

  ASSERT_TRUE(store_->operators().RemoveSilence(*id_a).ok());
  auto gone = store_->operators().RemoveSilence(*id_a);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, core::ErrorCode::kNotFound);
  // Ids are not reused after a removal.
  auto id_c = store_->operators().AddSilence(a);
  ASSERT_TRUE(id_c.ok());
  EXPECT_GT(*id_c, *id_b);
}

TEST_P(OperatorContractTest, ASilencedKeyIsDecidedButItsRowsAreSilencedAndNeverClaimed) {
  ASSERT_TRUE(
      ops_->AddSilence(core::SilenceMatch::kGlob, "acme:*", hours(1), "maintenance", "alice", t0_)
          .ok());
  const uint64_t decisions_before = *store_->incidents().CountDecisions();
  const app::ApplySummary silenced = Observe("acme:db", true, t0_);
  const app::ApplySummary live = Observe("beta:db", true, t0_);
  EXPECT_EQ(silenced.outbox_silenced, 2u);
  EXPECT_EQ(live.outbox_silenced, 0u);
  EXPECT_EQ(*store_->incidents().CountDecisions(),
            decisions_before + 2);  // both decisions recorded
  auto incident = store_->incidents().FindIncident("acme:db");
  ASSERT_TRUE(incident.ok() && incident->has_value());
  EXPECT_TRUE((*incident)->is_open());

  for (const auto& row : RowsOf("acme:db")) EXPECT_EQ(row.status, OutboxStatus::kSilenced);
  auto claimed = dispatcher_->outbox().ClaimDue("d", t0_ + hours(48), seconds(60), 100);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 2u);
  for (const auto& row : *claimed) EXPECT_EQ(row.key, "beta:db");

  // After the silence ends, new transitions send again; the silenced rows stay unsent.
  const app::ApplySummary later = Observe("acme:db", true, t0_ + hours(2));
  EXPECT_EQ(later.outbox_silenced, 0u);
  EXPECT_EQ(later.poll.outbox_rows, 2u);
  EXPECT_EQ(store_->incidents().ListOutbox(OutboxStatus::kSilenced)->size(), 2u);
}

TEST_P(OperatorContractTest, AnAckedIncidentIsNotRenotifiedUntilItOpensAgain) {
  Observe("acme:db", true, t0_);
  auto acked = ops_->Ack("acme:db", "alice", t0_ + minutes(1));
  ASSERT_TRUE(acked.ok()) << acked.error().message;
  EXPECT_EQ(acked->acked_by, "alice");
  EXPECT_EQ(acked->version, 2u);
  auto stored = store_->incidents().FindIncident("acme:db");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->acked_at, t0_ + minutes(1));
  EXPECT_EQ((*stored)->version, 2u);
  EXPECT_EQ((*stored)->last_observed_at, t0_);  // an ack is not an observation

  // Past the cooldown: acknowledged, so no renotify row.
  EXPECT_EQ(Observe("acme:db", true, t0_ + minutes(20)).poll.outbox_rows, 0u);
  // Resolved by health, then failing again: a new generation, the ack cleared, a new open.
  Observe("acme:db", false, t0_ + minutes(21));
  Observe("acme:db", false, t0_ + minutes(22));
  EXPECT_EQ(Observe("acme:db", true, t0_ + minutes(23)).poll.outbox_rows, 2u);
  stored = store_->incidents().FindIncident("acme:db");
  EXPECT_EQ((*stored)->generation, 2u);
  EXPECT_FALSE((*stored)->acked_at.has_value());

  auto unknown = ops_->Ack("nope", "alice", t0_);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, core::ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().message.find("nope"), std::string::npos);
}

TEST_P(OperatorContractTest, AManualResolveIsATransitionWithAResolveRowPerChannel) {
  Observe("acme:db", true, t0_);
  const uint64_t decisions = *store_->incidents().CountDecisions();
  auto resolved = ops_->Resolve("acme:db", "alice", t0_ + minutes(3));
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  EXPECT_EQ(resolved->incident.status, core::IncidentStatus::kResolved);
  EXPECT_EQ(resolved->incident.resolved_at, t0_ + minutes(3));
  EXPECT_EQ(resolved->incident.version, 2u);
  ASSERT_EQ(resolved->outbox.size(), 2u);  // the channels of the generation's rows
  EXPECT_EQ(*store_->incidents().CountDecisions(), decisions + 1);
  EXPECT_EQ(
      test_store_->Query("SELECT reason FROM decisions WHERE key = 'acme:db' AND version = 2"),
      "manual");
  EXPECT_EQ(test_store_->Query("SELECT decision FROM decisions WHERE key = 'acme:db' AND"
                               " version = 2"),
            "resolve");

  int resolves = 0;
  for (const auto& row : RowsOf("acme:db")) {
    if (row.transition != core::TransitionKind::kResolve) continue;
    ++resolves;
    EXPECT_EQ(row.status, OutboxStatus::kPending);
    EXPECT_EQ(row.idempotency_key, core::OutboxIdempotencyKey("acme:db", 1, 2, row.channel));
  }
  EXPECT_EQ(resolves, 2);
  // The dispatcher sends the open, then the resolve, per channel.
  auto first = dispatcher_->outbox().ClaimDue("d", t0_ + minutes(4), seconds(60), 100);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->size(), 2u);

  auto again = ops_->Resolve("acme:db", "alice", t0_ + minutes(4));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, core::ErrorCode::kRejected);
  // The key is held resolved: a failure right after is recorded but pages nothing; once seen
  // healthy, the next failure opens a new generation.
  EXPECT_EQ(Observe("acme:db", true, t0_ + minutes(5)).poll.outbox_rows, 0u);
  EXPECT_EQ((*store_->incidents().FindIncident("acme:db"))->generation, 1u);
  EXPECT_TRUE((*store_->incidents().FindIncident("acme:db"))->held);
  Observe("acme:db", false, t0_ + minutes(6));
  EXPECT_FALSE((*store_->incidents().FindIncident("acme:db"))->held);
  EXPECT_EQ(Observe("acme:db", true, t0_ + minutes(7)).poll.outbox_rows, 2u);
  EXPECT_EQ((*store_->incidents().FindIncident("acme:db"))->generation, 2u);
}

TEST_P(OperatorContractTest, AManualResolveFollowsTheConfiguredRouteAndActiveSilences) {
  Observe("acme:db", true, t0_, {"slack"});
  app::OperatorCommands routed(store_->incidents(), store_->operators(), encoder_,
                               [](std::string_view condition) -> std::optional<app::Route> {
                                 if (condition != "c") return std::nullopt;
                                 return app::Route{.channels = {"pager", "slack"}, .shadow = false};
                               });
  ASSERT_TRUE(
      routed.AddSilence(core::SilenceMatch::kGlob, "acme:d*", hours(1), "maintenance", "alice", t0_)
          .ok());
  auto resolved = routed.Resolve("acme:db", "alice", t0_ + minutes(1));
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  ASSERT_EQ(resolved->outbox.size(), 2u);
  EXPECT_EQ(resolved->outbox[0].channel, "pager");
  EXPECT_EQ(resolved->outbox[1].channel, "slack");
  for (const auto& row : resolved->outbox) {
    EXPECT_EQ(Find(row.idempotency_key).status, OutboxStatus::kSilenced);
  }
}

TEST_P(OperatorContractTest, GenerationChannelsTellShadowOnlyChannels) {
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok());
  core::OutboxRow a = PendingRow("k", 1, 1, "slack", t0_);
  core::OutboxRow b = PendingRow("k", 1, 1, "trial", t0_);
  b.status = OutboxStatus::kShadow;
  core::OutboxRow c = PendingRow("k", 2, 5, "email", t0_);
  ASSERT_TRUE((*tx)->InsertOutbox(std::vector<core::OutboxRow>{a, b, c}).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  auto uses = store_->operators().GenerationChannels("k", 1);
  ASSERT_TRUE(uses.ok()) << uses.error().message;
  ASSERT_EQ(uses->size(), 2u);
  EXPECT_EQ((*uses)[0].channel, "slack");
  EXPECT_FALSE((*uses)[0].shadow_only);
  EXPECT_EQ((*uses)[1].channel, "trial");
  EXPECT_TRUE((*uses)[1].shadow_only);
}

TEST_P(OperatorContractTest, RetryPutsOnlyADeadRowBackDueNowWithAttemptsReset) {
  const core::OutboxRow row = DeadRow("acme:db");
  ASSERT_EQ(Find(row.idempotency_key).status, OutboxStatus::kDead);
  auto dead = ops_->ListDead();
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ((*dead)[0].last_error, "HTTP 400");

  auto retried = store_->operators().RetryDead(row.idempotency_key, t0_ + hours(1));
  ASSERT_TRUE(retried.ok()) << retried.error().message;
  EXPECT_EQ(*retried, OutboxStatus::kPending);
  const core::OutboxRow back = Find(row.idempotency_key);
  EXPECT_EQ(back.status, OutboxStatus::kPending);
  EXPECT_EQ(back.attempts, 0u);
  EXPECT_EQ(back.next_attempt_at, t0_ + hours(1));
  EXPECT_TRUE(back.lease_owner.empty());
  auto claimed = dispatcher_->outbox().ClaimDue("d2", t0_ + hours(1), seconds(60), 10);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].idempotency_key, row.idempotency_key);

  // Now in flight, not dead: refused.
  auto twice = store_->operators().RetryDead(row.idempotency_key, t0_ + hours(1));
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, core::ErrorCode::kRejected);
  auto unknown = store_->operators().RetryDead("q1-nope", t0_);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, core::ErrorCode::kNotFound);
}

TEST_P(OperatorContractTest, RetryOfARowOlderThanASentSiblingSupersedesIt) {
  const core::OutboxRow old = DeadRow("acme:db", 1);
  core::OutboxRow newer = PendingRow("acme:db", 1, 3, "webhook", t0_);
  ASSERT_EQ(InsertRows(store_->incidents(), {newer}), "");
  ASSERT_TRUE(store_->incidents().MarkSent(newer.idempotency_key, "m-1", t0_).ok());
  auto retried = store_->operators().RetryDead(old.idempotency_key, t0_ + hours(1));
  ASSERT_TRUE(retried.ok()) << retried.error().message;
  EXPECT_EQ(*retried, OutboxStatus::kSuperseded);
  EXPECT_EQ(Find(old.idempotency_key).status, OutboxStatus::kSuperseded);
}

TEST_P(OperatorContractTest, DropMarksOnlyADeadRowDroppedAndItIsNeverClaimed) {
  const core::OutboxRow row = DeadRow("acme:db");
  ASSERT_TRUE(store_->operators().DropDead(row.idempotency_key, t0_ + hours(1)).ok());
  EXPECT_EQ(Find(row.idempotency_key).status, OutboxStatus::kDropped);
  EXPECT_TRUE(ops_->ListDead()->empty());
  auto claimed = dispatcher_->outbox().ClaimDue("d", t0_ + hours(48), seconds(60), 10);
  ASSERT_TRUE(claimed.ok());
  EXPECT_TRUE(claimed->empty());
  auto twice = store_->operators().DropDead(row.idempotency_key, t0_ + hours(1));
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, core::ErrorCode::kRejected);
  auto retry = store_->operators().RetryDead(row.idempotency_key, t0_ + hours(1));
  ASSERT_FALSE(retry.ok());
  EXPECT_EQ(retry.error().code, core::ErrorCode::kRejected);
}

TEST_P(OperatorContractTest, RetryAllPutsEveryDeadRowOfAChannelBackAndCountsThem) {
  const core::OutboxRow a = DeadRow("acme:a");
  const core::OutboxRow b = DeadRow("acme:b");
  const core::OutboxRow c = DeadRow("acme:c", 1, "slack");
  core::OutboxRow newer = PendingRow("acme:b", 1, 3, "webhook", t0_);
  ASSERT_EQ(InsertRows(store_->incidents(), {newer}), "");
  ASSERT_TRUE(store_->incidents().MarkSent(newer.idempotency_key, "m-1", t0_).ok());

  auto webhook = ops_->RetryAllDead("webhook", t0_ + hours(1));
  ASSERT_TRUE(webhook.ok()) << webhook.error().message;
  EXPECT_EQ(webhook->pending, 1u);
  EXPECT_EQ(webhook->superseded, 1u);  // b: a newer message of its incident was sent
  EXPECT_EQ(Find(a.idempotency_key).status, OutboxStatus::kPending);
  EXPECT_EQ(Find(a.idempotency_key).attempts, 0u);
  EXPECT_EQ(Find(a.idempotency_key).next_attempt_at, t0_ + hours(1));
  EXPECT_EQ(Find(b.idempotency_key).status, OutboxStatus::kSuperseded);
  EXPECT_EQ(Find(c.idempotency_key).status, OutboxStatus::kDead);

  auto all = ops_->RetryAllDead(std::nullopt, t0_ + hours(2));
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->pending, 1u);
  EXPECT_EQ(all->superseded, 0u);
  EXPECT_EQ(Find(c.idempotency_key).status, OutboxStatus::kPending);
  EXPECT_TRUE(ops_->ListDead()->empty());
  auto none = ops_->RetryAllDead(std::nullopt, t0_ + hours(3));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->pending + none->superseded, 0u);
}

// The notice commits with the deaths: every death of a window carries the same notice row,
// and the store keeps one, listing (DeadRows) the rows that died in the window.
TEST_P(OperatorContractTest, DeathsCarryTheirWindowsNoticeIntoTheSameTransaction) {
  std::vector<core::OutboxRow> rows;
  for (const char* key : {"acme:a", "acme:b", "acme:c"}) {
    rows.push_back(PendingRow(key, 1, 1, "webhook", t0_));
  }
  ASSERT_EQ(InsertRows(store_->incidents(), rows), "");
  ASSERT_TRUE(dispatcher_->outbox().ClaimDue("d", t0_, seconds(60), 10).ok());
  const core::BudgetWindow window = core::DeadLetterWindowAt(t0_ + seconds(30), minutes(5));
  for (size_t batch = 0; batch < 2; ++batch) {  // a, then b and c: two transactions
    std::vector<core::OutboxOutcome> outcomes;
    for (size_t i = batch; i < (batch == 0 ? 1u : 3u); ++i) {
      core::OutboxOutcome dead;
      dead.kind = core::OutboxOutcome::Kind::kDead;
      dead.idempotency_key = rows[i].idempotency_key;
      dead.error = "HTTP 500 (gave up after 8 attempts)";
      dead.notice = core::MakeDeadLetterRow("ops", window, t0_ + seconds(30));
      outcomes.push_back(std::move(dead));
    }
    auto recorded = dispatcher_->outbox().RecordOutcomes("d", outcomes, t0_ + seconds(30));
    ASSERT_TRUE(recorded.ok()) << recorded.error().message;
    for (const core::Status& status : *recorded) EXPECT_TRUE(status.ok());
  }
  const auto notices = RowsOf(std::string(core::kDeadLetterKey));
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0].channel, "ops");
  EXPECT_EQ(notices[0].status, OutboxStatus::kPending);
  EXPECT_EQ(notices[0].next_attempt_at, window.end);
  EXPECT_TRUE(core::DeadLetterWindowOf(notices[0]).start == window.start);

  auto dead = dispatcher_->outbox().DeadRows(window.start, window.end);
  ASSERT_TRUE(dead.ok()) << dead.error().message;
  ASSERT_EQ(dead->size(), 3u);
  EXPECT_EQ((*dead)[0].key, "acme:a");
  EXPECT_EQ((*dead)[2].last_error, "HTTP 500 (gave up after 8 attempts)");
  auto later = dispatcher_->outbox().DeadRows(window.end, window.end + minutes(5));
  ASSERT_TRUE(later.ok());
  EXPECT_TRUE(later->empty());

  // Not due before the window's end; then claimed like any row.
  auto early = dispatcher_->outbox().ClaimDue("d2", window.end - seconds(1), seconds(60), 10);
  ASSERT_TRUE(early.ok());
  EXPECT_TRUE(early->empty());
  auto due = dispatcher_->outbox().ClaimDue("d2", window.end, seconds(60), 10);
  ASSERT_TRUE(due.ok());
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ((*due)[0].idempotency_key, notices[0].idempotency_key);
}

// An error-group source that always lists one failing group.
class OneGroupSource : public core::ErrorGroupSource {
 public:
  core::GroupListing List() override {
    core::GroupListing listing;
    listing.complete = true;
    listing.pages = 1;
    core::ErrorGroup group;
    group.id = "grp_7";
    group.title = "Model call failed";
    group.last_seen = last_seen;
    group.tags = {{"tenant", "acme"}};
    listing.groups.push_back(group);
    return listing;
  }
  core::Result<core::GroupDetail> Detail(std::string_view) override {
    return core::MakeError(core::ErrorCode::kNotFound, "no detail");
  }
  core::WallTime last_seen = OutboxEpoch();
};

class ShadowExitTest : public OperatorContractTest {
 protected:
  core::ErrorGroupCondition Condition(bool shadow) {
    core::ErrorGroupCondition c;
    c.common.name = "agent-errors";
    c.common.channels = {"slack", "email"};
    c.common.shadow = shadow;
    c.common.policy.cooldown = minutes(30);
    c.key = core::KeyTemplate::Parse("{tags.tenant}:{error_group_id}").value();
    return c;
  }
  // One poll cycle at `at` with the condition in or out of shadow mode.
  void Poll(bool shadow, core::WallTime at) {
    testing::FakeClock clock(at);
    source_.last_seen = at;
    app::Poller poller(store_->incidents(), encoder_, clock, {});
    poller.Watch(Condition(shadow), source_, "fake");
    NullSink sink;
    const app::CycleReport report = poller.RunOnce(sink);
    ASSERT_TRUE(report.ok()) << report.conditions[0].apply_error;
  }
  std::vector<core::OutboxRow> Live(const std::string& key) {
    std::vector<core::OutboxRow> out;
    for (const core::OutboxRow& row : RowsOf(key)) {
      if (row.status != OutboxStatus::kShadow) out.push_back(row);
    }
    return out;
  }

  OneGroupSource source_;
};

TEST_P(ShadowExitTest, LeavingShadowAnnouncesTheOpenOnceWithHowLongItHasBeenOpen) {
  const std::string key = "acme:grp_7";
  Poll(true, t0_);                // opens in shadow
  Poll(true, t0_ + minutes(40));  // renotify, still shadow
  ASSERT_EQ(RowsOf(key).size(), 4u);
  EXPECT_TRUE(Live(key).empty());

  Poll(false, t0_ + hours(2) + minutes(13));  // shadow off: cooldown elapsed, a renotify is due
  const auto live = Live(key);
  ASSERT_EQ(live.size(), 2u) << "one open per channel, and no \"still failing\"";
  for (const core::OutboxRow& row : live) {
    EXPECT_EQ(row.transition, core::TransitionKind::kOpen);
    EXPECT_EQ(row.status, OutboxStatus::kPending);
    EXPECT_EQ(row.generation, 1u);
    EXPECT_EQ(row.version, 0u);
    EXPECT_EQ(row.idempotency_key, core::OutboxIdempotencyKey(key, 1, 0, row.channel));
    EXPECT_NE(row.payload.find(R"("transition":"open")"), std::string::npos) << row.payload;
    EXPECT_NE(row.payload.find(R"("opened_in_shadow":true)"), std::string::npos);
    EXPECT_NE(row.payload.find(R"("open_for_seconds":7980)"), std::string::npos) << row.payload;
  }

  Poll(false, t0_ + hours(3));  // live again, cooldown elapsed: a plain renotify, no second open
  Poll(false, t0_ + hours(4));
  size_t opens = 0;
  for (const core::OutboxRow& row : Live(key)) {
    opens += row.transition == core::TransitionKind::kOpen ? 1u : 0u;
  }
  EXPECT_EQ(opens, 2u);
  EXPECT_GT(Live(key).size(), 2u) << "renotifies follow as usual";
}

TEST_P(ShadowExitTest, TwoPollersLeavingShadowAtOnceAnnounceItOnce) {
  const std::string key = "acme:grp_7";
  Poll(true, t0_);
  // Both read the mark as "on" before either commits: each applies an announcing poll.
  for (int poller = 0; poller < 2; ++poller) {
    app::ApplyOptions options;
    options.channels = {"slack", "email"};
    options.policy.cooldown = minutes(30);
    options.announce_shadow_opens = true;
    app::PollApplier applier(store_->incidents(), encoder_, options);
    core::Observation observation;
    observation.key = key;
    observation.condition = "agent-errors";
    observation.at = t0_ + minutes(5 + poller);
    observation.health = core::Health::kUnhealthy;
    const std::vector<core::Observation> poll = {observation};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied = applier.Apply(stream, "p" + std::to_string(poller), observation.at, sink);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
    EXPECT_EQ(applied->late_opens, poller == 0 ? 2u : 0u);
  }
  EXPECT_EQ(Live(key).size(), 2u);
}

TEST_P(ShadowExitTest, AConditionThatWasNeverInShadowAnnouncesNothing) {
  const std::string key = "acme:grp_7";
  Poll(false, t0_);
  Poll(false, t0_ + minutes(40));
  const auto live = Live(key);
  ASSERT_EQ(live.size(), 4u);  // open and renotify, on two channels
  for (const core::OutboxRow& row : live) EXPECT_NE(row.version, 0u);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, OperatorContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, OperatorContractTest, ::testing::Values(Backend::kPostgres));
INSTANTIATE_TEST_SUITE_P(Sqlite, ShadowExitTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, ShadowExitTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
