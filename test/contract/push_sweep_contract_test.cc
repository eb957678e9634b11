// A push condition's stale sweep (app::Poller::Watch(PushCondition)) on SQLite and PostgreSQL:
// keys pushed through the same apply path the HTTP inputs use, then swept by poll cycles. A key
// unrefreshed for stale_after gets an unknown mark on its timeline (never a healthy step), one
// unrefreshed for expire_after resolves with reason "expired" and a resolve row, fresh keys are
// untouched, and the sweep commits under its lease's fence like any poll.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "../app/fake_clock.h"
#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/apply_options_for.h"
#include "quell/app/poll_applier.h"
#include "quell/app/poll_leases.h"
#include "quell/app/poller.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/ports/operator_store.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

class PushSweepContractTest : public StoreTest {
 protected:
  void SetUpStore() override {
    condition_.common.name = "prom-alerts";
    condition_.common.channels = {"hook"};
    condition_.common.policy.cooldown = hours(1);
    condition_.common.interval = minutes(1);
    condition_.key = core::KeyTemplate::Parse("{labels.tenant}:{labels.alertname}").value();
    condition_.stale_after = minutes(15);
    condition_.expire_after = hours(4);
  }

  // Applies pushed alerts as the HTTP inputs do: ObservePushedAlerts, then one PollApplier run
  // with the condition's ApplyOptionsFor.
  void Push(const std::vector<core::PushedAlert>& alerts, core::WallTime now) {
    const std::vector<core::Observation> observations =
        core::ObservePushedAlerts(condition_, alerts, now);
    app::PollApplier applier(store_->incidents(), encoder_,
                             app::ApplyOptionsFor(condition_.common, app::PollerOptions{}, {}));
    app::VectorObservationStream stream(observations);
    NullSink sink;
    auto applied = applier.Apply(stream, "push-" + core::FormatRfc3339(now), now, sink);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
  }

  static core::PushedAlert Firing(const std::string& tenant, const std::string& name) {
    core::PushedAlert alert;
    alert.labels = {{"alertname", name}, {"tenant", tenant}};
    return alert;
  }

  // One poll cycle at `at` sweeping the condition; `held` as `quell run` passes it.
  app::CycleReport Sweep(core::WallTime at, const app::HeldLeases* held = nullptr) {
    testing::FakeClock clock(at);
    app::Poller poller(store_->incidents(), encoder_, clock, {});
    poller.Watch(condition_);
    NullSink sink;
    return poller.RunOnce(sink, held);
  }

  core::StoredTimeline Timeline(const std::string& key) {
    auto timeline = store_->operators().ReadTimeline(key, 100);
    EXPECT_TRUE(timeline.ok()) << timeline.error().message;
    return timeline.ok() ? *timeline : core::StoredTimeline{};
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

  std::vector<std::string> OpenKeys() {
    auto open = store_->incidents().ListOpenIncidents("prom-alerts");
    EXPECT_TRUE(open.ok());
    std::vector<std::string> keys;
    for (const core::Incident& incident : *open) keys.push_back(incident.key);
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  core::PushCondition condition_;
  jsonl::JsonPayloadEncoder encoder_;
  const core::WallTime t0_ = OutboxEpoch();
};

TEST_P(PushSweepContractTest, AStaleKeyIsMarkedUnknownAndAFreshOneIsUntouched) {
  Push({Firing("acme", "DiskFull"), Firing("globex", "HighLatency")}, t0_);
  Push({Firing("globex", "HighLatency")}, t0_ + minutes(10));  // refreshed

  const app::CycleReport report = Sweep(t0_ + minutes(20));
  ASSERT_EQ(report.conditions.size(), 1u);
  const app::ConditionOutcome& outcome = report.conditions[0];
  EXPECT_TRUE(report.ok()) << outcome.apply_error;
  EXPECT_EQ(outcome.condition, "prom-alerts");
  EXPECT_EQ(outcome.source, "push");
  EXPECT_EQ(outcome.lease, app::PollLeaseName("push", minutes(1)));
  EXPECT_EQ(outcome.observations, 1u);

  const core::StoredTimeline stale = Timeline("acme:DiskFull");
  ASSERT_EQ(stale.marks.size(), 1u);
  EXPECT_EQ(stale.marks[0].health, "unknown");
  EXPECT_EQ(stale.marks[0].decision, "unknown");
  EXPECT_EQ(stale.marks[0].at, t0_ + minutes(20));
  EXPECT_EQ(stale.marks[0].generation, 1u);
  ASSERT_EQ(stale.decisions.size(), 1u);  // the open only: unknown never counts as healthy
  EXPECT_EQ(stale.decisions[0].reason, "open");

  EXPECT_TRUE(Timeline("globex:HighLatency").marks.empty());
  EXPECT_EQ(OpenKeys(), (std::vector<std::string>{"acme:DiskFull", "globex:HighLatency"}));
  EXPECT_EQ(RowsOf("acme:DiskFull").size(), 1u);  // the open, nothing more

  // Every later sweep marks it again while nobody pushes it.
  Sweep(t0_ + minutes(21));
  EXPECT_EQ(Timeline("acme:DiskFull").marks.size(), 2u);
}

TEST_P(PushSweepContractTest, PastExpireAfterTheIncidentResolvesAsExpiredWithAResolveRow) {
  Push({Firing("acme", "DiskFull")}, t0_);
  Push({Firing("globex", "HighLatency")}, t0_ + hours(1));
  Sweep(t0_ + minutes(30));  // stale: unknown marks only

  const app::CycleReport report = Sweep(t0_ + hours(4));
  ASSERT_TRUE(report.ok()) << report.conditions[0].apply_error;
  EXPECT_EQ(report.conditions[0].summary.poll.outbox_rows, 1u);

  EXPECT_EQ(OpenKeys(), (std::vector<std::string>{"globex:HighLatency"}));
  const core::StoredTimeline expired = Timeline("acme:DiskFull");
  ASSERT_EQ(expired.decisions.size(), 2u);
  EXPECT_EQ(expired.decisions[1].decision, "resolve");
  EXPECT_EQ(expired.decisions[1].reason, "expired");
  EXPECT_EQ(expired.decisions[1].at, t0_ + hours(4));
  EXPECT_EQ(expired.decisions[1].poll_id.rfind("poll-", 0), 0u);

  const std::vector<core::OutboxRow> rows = RowsOf("acme:DiskFull");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].transition, core::TransitionKind::kResolve);
  EXPECT_EQ(rows[1].channel, "hook");
  EXPECT_EQ(rows[1].generation, 1u);
  EXPECT_EQ(rows[1].status, core::OutboxStatus::kPending);

  // globex was refreshed an hour later: stale (3 h), not expired.
  EXPECT_EQ(RowsOf("globex:HighLatency").size(), 1u);
  EXPECT_FALSE(Timeline("globex:HighLatency").marks.empty());

  // Pushed firing again: a new generation opens, as for any resolved key.
  Push({Firing("acme", "DiskFull")}, t0_ + hours(5));
  const std::vector<core::OutboxRow> again = RowsOf("acme:DiskFull");
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[2].transition, core::TransitionKind::kOpen);
  EXPECT_EQ(again[2].generation, 2u);
}

TEST_P(PushSweepContractTest, ASweepInShadowWritesShadowRowsAndItsMark) {
  condition_.common.shadow = true;
  Push({Firing("acme", "DiskFull")}, t0_);
  const app::CycleReport report = Sweep(t0_ + hours(5));
  ASSERT_TRUE(report.ok()) << report.conditions[0].apply_error;
  const std::vector<core::OutboxRow> rows = RowsOf("acme:DiskFull");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].transition, core::TransitionKind::kResolve);
  EXPECT_EQ(rows[1].status, core::OutboxStatus::kShadow);
  auto mark = store_->incidents().GetSourceMark(app::ShadowMarkName("prom-alerts"));
  ASSERT_TRUE(mark.ok());
  EXPECT_EQ(*mark, std::optional<std::string>("on"));
}

TEST_P(PushSweepContractTest, TheSweepCommitsOnlyUnderTheLeaseItHolds) {
  const std::string lease = app::PollLeaseName("push", minutes(1));
  Push({Firing("acme", "DiskFull")}, t0_);

  // A lease it does not hold: another instance sweeps, this one asks nothing.
  const app::HeldLeases other = {{"poll/something-else/1m0s", 1}};
  EXPECT_TRUE(Sweep(t0_ + hours(5), &other).conditions.empty());

  auto mine = store_->leases().Acquire(lease, "a", t0_, hours(10));
  ASSERT_TRUE(mine.ok() && mine->held);
  auto theirs = store_->leases().Acquire(lease, "b", t0_ + hours(11), hours(10));
  ASSERT_TRUE(theirs.ok() && theirs->held);
  ASSERT_GT(theirs->lease.token, mine->lease.token);

  // The old holder's token is refused at commit: nothing resolves.
  const app::HeldLeases stale = {{lease, mine->lease.token}};
  const app::CycleReport fenced = Sweep(t0_ + hours(5), &stale);
  ASSERT_EQ(fenced.conditions.size(), 1u);
  EXPECT_TRUE(fenced.conditions[0].fenced) << fenced.conditions[0].apply_error;
  EXPECT_EQ(OpenKeys(), (std::vector<std::string>{"acme:DiskFull"}));

  const app::HeldLeases held = {{lease, theirs->lease.token}};
  const app::CycleReport swept = Sweep(t0_ + hours(5), &held);
  ASSERT_TRUE(swept.ok()) << swept.conditions[0].apply_error;
  EXPECT_EQ(swept.conditions[0].token, theirs->lease.token);
  EXPECT_TRUE(OpenKeys().empty());
}

TEST_P(PushSweepContractTest, AShardedSweepKeepsItsOwnKeys) {
  condition_.common.shards = 2;
  Push({Firing("acme", "DiskFull"), Firing("globex", "DiskFull"), Firing("initech", "DiskFull"),
        Firing("umbrella", "DiskFull")},
       t0_);
  testing::FakeClock clock(t0_ + hours(5));
  app::Poller poller(store_->incidents(), encoder_, clock, {});
  poller.Watch(condition_);
  ASSERT_EQ(poller.LeaseNames().size(), 2u);
  // Only shard 1's lease held: only its keys resolve.
  const app::HeldLeases held = {{poller.LeaseNames()[0], 0}};
  NullSink sink;
  const app::CycleReport report = poller.RunOnce(sink, &held);
  ASSERT_EQ(report.conditions.size(), 1u);
  ASSERT_TRUE(report.ok()) << report.conditions[0].apply_error;
  // FNV-1a puts globex in shard 0 of 2, the other three in shard 1.
  EXPECT_EQ(OpenKeys(),
            (std::vector<std::string>{"acme:DiskFull", "initech:DiskFull", "umbrella:DiskFull"}));
  for (const std::string& key : OpenKeys()) EXPECT_EQ(app::ShardOf(key, 2), 1u) << key;
  EXPECT_EQ(report.conditions[0].summary.poll.outbox_rows, 4u - OpenKeys().size());
}

INSTANTIATE_TEST_SUITE_P(Sqlite, PushSweepContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, PushSweepContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
