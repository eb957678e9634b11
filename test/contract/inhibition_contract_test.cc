// Inhibition on SQLite and PostgreSQL: while an open incident of the inhibiting condition agrees
// on the `equal` labels, the dependent incident's rows are stored inhibited; once nothing holds
// it, a dependent still open gets its open once per channel, whoever polls and however often,
// and one that resolved while held sends nothing.
#include <gtest/gtest.h>

#include <chrono>
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

using core::OutboxStatus;

core::WallTime At(int minute) {
  return *core::ParseRfc3339("2026-12-04T09:00:00Z") + std::chrono::minutes(minute);
}

class InhibitionContractTest : public StoreTest {
 protected:
  // One poll of `condition` observing `key` (labelled tenant=`tenant`) at `at`; "answers" is
  // inhibited by "provider-down" on equal tenant.
  app::ApplySummary Poll(const std::string& condition, const std::string& key,
                         const std::string& tenant, core::Health health, core::WallTime at,
                         const std::string& poll_id) {
    app::ApplyOptions options;
    options.channels = {"chat", "pager"};
    options.policy.cooldown = std::chrono::hours(2);
    options.policy.healthy_polls_to_close = 1;
    if (condition == "answers") options.inhibited_by = {{"provider-down", {"tenant"}}};
    app::PollApplier applier(store_->incidents(), encoder_, options);
    core::Observation observation;
    observation.key = key;
    observation.condition = condition;
    observation.at = at;
    observation.health = health;
    observation.labels = {{"tenant", tenant}};
    const std::vector<core::Observation> poll = {observation};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied = applier.Apply(stream, poll_id, at, sink);
    EXPECT_TRUE(applied.ok()) << applied.error().message;
    return applied.ok() ? *applied : app::ApplySummary{};
  }
  std::vector<core::OutboxRow> Rows(const std::string& key) {
    std::vector<core::OutboxRow> out;
    const auto rows = store_->incidents().ListOutbox(std::nullopt);
    for (const core::OutboxRow& row : *rows) {
      if (row.key == key) out.push_back(row);
    }
    return out;
  }
  jsonl::JsonPayloadEncoder encoder_;
};

constexpr auto kDown = core::Health::kUnhealthy;
constexpr auto kUp = core::Health::kHealthy;

TEST_P(InhibitionContractTest, HeldWhileTheInhibitorIsOpenAndOpenedOnceWhenItResolves) {
  Poll("provider-down", "acme:provider", "acme", kDown, At(0), "provider-1");
  EXPECT_EQ(Poll("answers", "acme:answers", "acme", kDown, At(1), "answers-1").outbox_inhibited,
            2u);
  for (const core::OutboxRow& row : Rows("acme:answers")) {
    EXPECT_EQ(row.status, OutboxStatus::kInhibited);
    EXPECT_EQ(row.last_error, "held behind acme:provider");
  }
  // Another tenant's incident is not held.
  EXPECT_EQ(Poll("answers", "globex:answers", "globex", kDown, At(1), "answers-2").outbox_inhibited,
            0u);
  for (const core::OutboxRow& row : Rows("globex:answers")) {
    EXPECT_EQ(row.status, OutboxStatus::kPending);
  }
  // Still held on the next poll: nothing announced.
  EXPECT_EQ(Poll("answers", "acme:answers", "acme", kDown, At(2), "answers-3").inhibition_opens,
            0u);

  Poll("provider-down", "acme:provider", "acme", kUp, At(30), "provider-2");
  // Two pollers and a retried poll: one open per channel.
  EXPECT_EQ(Poll("answers", "acme:answers", "acme", kDown, At(31), "answers-4").inhibition_opens,
            2u);
  EXPECT_EQ(Poll("answers", "acme:answers", "acme", kDown, At(32), "answers-5").inhibition_opens,
            0u);
  EXPECT_EQ(Poll("answers", "acme:answers", "acme", kDown, At(31), "answers-4").inhibition_opens,
            0u);
  size_t live = 0;
  for (const core::OutboxRow& row : Rows("acme:answers")) {
    if (row.status == OutboxStatus::kInhibited) continue;
    ++live;
    EXPECT_EQ(row.status, OutboxStatus::kPending);
    EXPECT_EQ(row.transition, core::TransitionKind::kOpen);
    EXPECT_EQ(row.version, 0u);
    EXPECT_NE(row.payload.find(R"("held_behind":"acme:provider")"), std::string::npos)
        << row.payload;
    EXPECT_NE(row.payload.find(R"("open_for_seconds":1800)"), std::string::npos) << row.payload;
  }
  EXPECT_EQ(live, 2u);

  // Its resolve follows normally, to the channels that got the open.
  Poll("answers", "acme:answers", "acme", kUp, At(40), "answers-6");
  size_t resolves = 0;
  for (const core::OutboxRow& row : Rows("acme:answers")) {
    if (row.transition != core::TransitionKind::kResolve) continue;
    ++resolves;
    EXPECT_EQ(row.status, OutboxStatus::kPending);
  }
  EXPECT_EQ(resolves, 2u);
}

TEST_P(InhibitionContractTest, AnIncidentThatResolvesWhileHeldSendsNothing) {
  Poll("provider-down", "acme:provider", "acme", kDown, At(0), "provider-1");
  Poll("answers", "acme:answers", "acme", kDown, At(1), "answers-1");
  Poll("answers", "acme:answers", "acme", kUp, At(5), "answers-2");
  Poll("provider-down", "acme:provider", "acme", kUp, At(30), "provider-2");
  EXPECT_EQ(Poll("answers", "acme:answers", "acme", kUp, At(31), "answers-3").inhibition_opens, 0u);
  const std::vector<core::OutboxRow> rows = Rows("acme:answers");
  EXPECT_EQ(rows.size(), 4u);  // open and resolve on two channels
  for (const core::OutboxRow& row : rows) EXPECT_EQ(row.status, OutboxStatus::kInhibited);
}

// The inhibitor resolved, and the dependent resolved before its condition was polled again:
// its open was never sent, so neither is its resolve.
TEST_P(InhibitionContractTest, AResolveAfterTheInhibitorLetGoOfAnUnsentOpenStaysQuiet) {
  Poll("provider-down", "acme:provider", "acme", kDown, At(0), "provider-1");
  Poll("answers", "acme:answers", "acme", kDown, At(1), "answers-1");
  Poll("provider-down", "acme:provider", "acme", kUp, At(30), "provider-2");
  EXPECT_EQ(Poll("answers", "acme:answers", "acme", kUp, At(31), "answers-2").inhibition_opens, 0u);
  const std::vector<core::OutboxRow> rows = Rows("acme:answers");
  EXPECT_EQ(rows.size(), 4u);
  for (const core::OutboxRow& row : rows) {
    EXPECT_EQ(row.status, OutboxStatus::kInhibited) << core::TransitionName(row.transition);
  }
}

// The dependent paged before its inhibitor opened: its resolve while held still goes out, or the
// page would stay open for good; nothing else of it is sent while held.
TEST_P(InhibitionContractTest, AResolveOfAnOpenSentBeforeTheInhibitorOpenedIsSent) {
  Poll("answers", "acme:answers", "acme", kDown, At(0), "answers-1");
  Poll("provider-down", "acme:provider", "acme", kDown, At(1), "provider-1");
  EXPECT_EQ(Poll("answers", "acme:answers", "acme", kUp, At(5), "answers-2").outbox_inhibited, 0u);
  size_t resolves = 0;
  for (const core::OutboxRow& row : Rows("acme:answers")) {
    EXPECT_EQ(row.status, OutboxStatus::kPending) << core::TransitionName(row.transition);
    if (row.transition == core::TransitionKind::kResolve) ++resolves;
  }
  EXPECT_EQ(resolves, 2u);
}

TEST_P(InhibitionContractTest, StoresReadTheOpenInhibitorsAndTheHeldChannels) {
  Poll("provider-down", "globex:provider", "globex", kDown, At(0), "provider-1");
  Poll("provider-down", "acme:provider", "acme", kDown, At(0), "provider-2");
  Poll("provider-down", "initech:provider", "initech", kDown, At(0), "provider-3");
  Poll("provider-down", "initech:provider", "initech", kUp, At(1), "provider-4");
  Poll("answers", "acme:answers", "acme", kDown, At(2), "answers-1");
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok()) << tx.error().message;
  const std::vector<std::string> conditions = {"nothing", "provider-down"};
  auto open = (*tx)->LoadOpenIncidentsOf(conditions);
  ASSERT_TRUE(open.ok()) << open.error().message;
  ASSERT_EQ(open->size(), 2u);  // not the resolved one, nor the other condition's
  EXPECT_EQ((*open)[0].key, "acme:provider");
  EXPECT_EQ((*open)[1].key, "globex:provider");
  EXPECT_EQ((*open)[0].labels, (core::Labels{{"tenant", "acme"}}));

  const std::vector<std::pair<std::string, uint64_t>> generations = {{"acme:answers", 1},
                                                                     {"globex:provider", 1}};
  auto held = (*tx)->InhibitedChannels(generations);
  ASSERT_TRUE(held.ok()) << held.error().message;
  ASSERT_EQ(held->size(), 2u);
  EXPECT_EQ((*held)[0].channel, "chat");
  EXPECT_EQ((*held)[1].channel, "pager");
  EXPECT_EQ((*held)[1].held_behind, "held behind acme:provider");
  auto never_live = (*tx)->NeverLiveChannels(generations);
  ASSERT_TRUE(never_live.ok());
  EXPECT_EQ(never_live->size(), 2u);  // inhibited rows are not live
}

// A renotify that fell in a silence while the open was held says nothing of the open: when the
// hold ends, the open still goes out (found by the model-based test, cli_policy_model_e2e_test).
TEST_P(InhibitionContractTest, ASilencedRenotifyOfAHeldOpenLeavesTheOpenOwed) {
  Poll("provider-down", "acme:provider", "acme", kDown, At(0), "provider-1");
  Poll("answers", "acme:answers", "acme", kDown, At(1), "answers-1");
  core::Silence silence;
  silence.match = core::SilenceMatch::kExact;
  silence.pattern = "acme:answers";
  silence.reason = "deploy";
  silence.created_by = "test";
  silence.created_at = At(100);
  silence.expires_at = At(130);
  ASSERT_TRUE(store_->operators().AddSilence(silence).ok());
  Poll("answers", "acme:answers", "acme", kDown, At(125), "answers-2");  // the cooldown is 2h
  size_t silenced = 0;
  for (const core::OutboxRow& row : Rows("acme:answers")) {
    if (row.status == OutboxStatus::kSilenced) {
      EXPECT_EQ(row.transition, core::TransitionKind::kRenotify);
      ++silenced;
    }
  }
  EXPECT_EQ(silenced, 2u);

  Poll("provider-down", "acme:provider", "acme", kUp, At(140), "provider-2");
  EXPECT_EQ(Poll("answers", "acme:answers", "acme", kDown, At(141), "answers-3").inhibition_opens,
            2u);
}

// The same silenced renotify, and the incident resolves while still held: its resolve stays
// held too, since no open was ever sent for it to close.
TEST_P(InhibitionContractTest, AHeldResolveAfterASilencedRenotifyStaysHeld) {
  Poll("provider-down", "acme:provider", "acme", kDown, At(0), "provider-1");
  Poll("answers", "acme:answers", "acme", kDown, At(1), "answers-1");
  core::Silence silence;
  silence.match = core::SilenceMatch::kExact;
  silence.pattern = "acme:answers";
  silence.reason = "deploy";
  silence.created_by = "test";
  silence.created_at = At(100);
  silence.expires_at = At(130);
  ASSERT_TRUE(store_->operators().AddSilence(silence).ok());
  Poll("answers", "acme:answers", "acme", kDown, At(125), "answers-2");
  Poll("answers", "acme:answers", "acme", kUp, At(140), "answers-3");
  size_t resolves = 0;
  for (const core::OutboxRow& row : Rows("acme:answers")) {
    if (row.transition != core::TransitionKind::kResolve) continue;
    EXPECT_EQ(row.status, OutboxStatus::kInhibited) << row.channel;
    ++resolves;
  }
  EXPECT_EQ(resolves, 2u);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, InhibitionContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, InhibitionContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
