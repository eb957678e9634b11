#include "quell/app/run_metrics.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "fake_clock.h"
#include "fake_incident_store.h"
#include "fake_outbox_store.h"
#include "quell/app/dispatch_recorder.h"

namespace quell::app {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const core::WallTime kAt = *core::ParseRfc3339("2026-12-02T09:00:00Z");

ConditionOutcome Outcome(const std::string& condition, bool source_ok, bool applied) {
  ConditionOutcome c;
  c.condition = condition;
  c.source_ok = source_ok;
  c.applied = applied;
  return c;
}

TEST(RunMetricsTest, ShowsHowManyPollsInARowAMetricConditionKeptNoSeries) {
  MetricsRegistry registry;
  testing::FakeClock clock(kAt);
  RunMetrics metrics(registry, clock);
  CycleReport report;
  ConditionOutcome typo = Outcome("latency", true, true);
  typo.empty_polls = 4;
  report.conditions.push_back(typo);
  report.conditions.push_back(Outcome("errors", true, true));  // not a metric condition
  metrics.OnCycleEnd("r1", report, kAt);
  const std::string text = registry.Render();
  EXPECT_NE(text.find("quell_condition_empty_polls{condition=\"latency\"} 4\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("quell_condition_empty_polls{condition=\"errors\"}"), std::string::npos)
      << text;
}

TEST(RunMetricsTest, FollowsThePollLeasesHeldLostTakenOverAndFencedPolls) {
  MetricsRegistry registry;
  testing::FakeClock clock(kAt);
  RunMetrics metrics(registry, clock);
  const std::string a = "poll/infrai-error-groups/1m0s";
  const std::string b = "poll/prometheus/30s";
  metrics.OnLeasesWanted({a, b});
  metrics.OnLeaseAcquired(a, 3, /*takeover=*/true);
  metrics.OnLeaseAcquired(b, 1, /*takeover=*/false);
  metrics.OnLeaseLost(b, 1);
  metrics.OnPollFenced("checkout", b, 1);
  const std::string text = registry.Render();
  for (const std::string& line : std::vector<std::string>{
           "quell_poll_lease_held{lease=\"" + a + "\"} 1\n",
           "quell_poll_lease_held{lease=\"" + b + "\"} 0\n",
           "quell_poll_lease_acquired_total{lease=\"" + a + "\"} 1\n",
           "quell_poll_lease_acquired_total{lease=\"" + b + "\"} 1\n",
           "quell_poll_lease_takeovers_total{lease=\"" + a + "\"} 1\n",
           "quell_poll_lease_takeovers_total{lease=\"" + b + "\"} 0\n",
           "quell_poll_lease_lost_total{lease=\"" + b + "\"} 1\n",
           std::string("quell_poll_fenced_total{condition=\"checkout\"} 1\n"),
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << text;
  }
  metrics.OnLeaseReleased(a, 3);
  EXPECT_NE(registry.Render().find("quell_poll_lease_held{lease=\"" + a + "\"} 0\n"),
            std::string::npos);
}

TEST(RunMetricsTest, CountsPollsFailuresAndDecisions) {
  MetricsRegistry registry;
  testing::FakeClock clock(kAt);
  RunMetrics metrics(registry, clock);
  CycleReport report;
  ConditionOutcome ok = Outcome("errors", true, true);
  ok.summary.poll.by_decision[static_cast<size_t>(core::DecisionKind::kNotify)] = 2;
  ok.summary.poll.by_decision[static_cast<size_t>(core::DecisionKind::kUpdateOnly)] = 5;
  report.conditions.push_back(ok);
  report.conditions.push_back(Outcome("latency", false, false));
  metrics.OnCycleStart("r1", kAt);
  metrics.OnCycleEnd("r1", report, kAt + milliseconds(1500));

  EXPECT_EQ(registry.AddCounter("quell_polls_total", "").Value({{"condition", "errors"}}), 1);
  EXPECT_EQ(registry.AddCounter("quell_polls_total", "").Value({{"condition", "latency"}}), 1);
  auto failures = registry.AddCounter("quell_poll_failures_total", "");
  EXPECT_EQ(failures.Value({{"condition", "latency"}, {"reason", "source"}}), 1);
  EXPECT_EQ(failures.Value({{"condition", "latency"}, {"reason", "apply"}}), 1);
  EXPECT_EQ(failures.Value({{"condition", "errors"}, {"reason", "source"}}), 0);
  auto observations = registry.AddCounter("quell_observations_total", "");
  EXPECT_EQ(observations.Value({{"decision", "notify"}}), 2);
  EXPECT_EQ(observations.Value({{"decision", "update_only"}}), 5);
  auto cycles = registry.AddCounter("quell_poll_cycles_total", "");
  EXPECT_EQ(cycles.Value({{"result", "failed"}}), 1);
  EXPECT_EQ(cycles.Value({{"result", "ok"}}), 0);

  const std::string text = registry.Render();
  EXPECT_NE(text.find("quell_last_complete_cycle_timestamp_seconds 1796202001.5\n"),
            std::string::npos)
      << text;
  // A failed cycle is complete but not successful.
  EXPECT_EQ(text.find("\nquell_last_successful_cycle_timestamp_seconds "), std::string::npos);
  EXPECT_NE(text.find("quell_observations_total{decision=\"stale\"} 0\n"), std::string::npos);
  ASSERT_TRUE(metrics.LastCompleteCycle().has_value());
  EXPECT_EQ(*metrics.LastCompleteCycle(), kAt + milliseconds(1500));
}

// Liveness follows commits: a cycle whose source failed still commits its unknowns and counts;
// one whose observations could not be written (a store that refuses them) does not.
TEST(RunMetricsTest, ACycleCountsAsCommittedOnlyWhenEveryConditionCommitted) {
  MetricsRegistry registry;
  testing::FakeClock clock(kAt);
  RunMetrics metrics(registry, clock);
  EXPECT_FALSE(metrics.LastCommittedCycle().has_value());
  CycleReport slow_source;
  slow_source.conditions.push_back(Outcome("errors", false, true));
  slow_source.conditions.push_back(Outcome("latency", true, true));
  metrics.OnCycleEnd("r1", slow_source, kAt + seconds(1));
  ASSERT_TRUE(metrics.LastCommittedCycle().has_value());
  EXPECT_EQ(*metrics.LastCommittedCycle(), kAt + seconds(1));
  ASSERT_TRUE(metrics.LastCommitted().has_value());
  EXPECT_EQ(metrics.LastCommitted()->mono, clock.Monotonic()) << "heard now, on the steady clock";

  CycleReport store_down;
  store_down.conditions.push_back(Outcome("errors", true, false));
  store_down.conditions.push_back(Outcome("latency", true, true));
  metrics.OnCycleEnd("r2", store_down, kAt + seconds(2));
  EXPECT_EQ(*metrics.LastCommittedCycle(), kAt + seconds(1));
  EXPECT_EQ(*metrics.LastCompleteCycle(), kAt + seconds(2));
  EXPECT_NE(registry.Render().find("quell_last_committed_cycle_timestamp_seconds 1796202001\n"),
            std::string::npos)
      << registry.Render();
}

TEST(RunMetricsTest, NoCompleteCycleBeforeTheFirstEnds) {
  MetricsRegistry registry;
  testing::FakeClock clock(kAt);
  RunMetrics metrics(registry, clock);
  metrics.OnCycleStart("r1", kAt);
  EXPECT_FALSE(metrics.LastCompleteCycle().has_value());
  metrics.OnCycleEnd("r1", CycleReport{}, kAt + seconds(1));
  EXPECT_EQ(registry.AddCounter("quell_poll_cycles_total", "").Value({{"result", "ok"}}), 1);
  EXPECT_NE(registry.Render().find("quell_last_successful_cycle_timestamp_seconds 1796202001\n"),
            std::string::npos);
}

TEST(RunMetricsTest, CountsSendsPerChannelAndObservesLatency) {
  MetricsRegistry registry;
  testing::FakeClock clock(kAt);
  RunMetrics metrics(registry, clock);
  DispatchReport report;
  report.by_channel["ops"] = ChannelTally{
      .attempts = 3, .failures = 1, .delivery_latencies = {milliseconds(40), seconds(2)}};
  report.by_channel["sms"] = ChannelTally{.attempts = 1, .failures = 1, .delivery_latencies = {}};
  metrics.OnDispatch(report, kAt);
  metrics.OnDispatch(report, kAt);

  EXPECT_EQ(registry.AddCounter("quell_send_attempts_total", "").Value({{"channel", "ops"}}), 6);
  EXPECT_EQ(registry.AddCounter("quell_send_failures_total", "").Value({{"channel", "sms"}}), 2);
  auto latency = registry.AddHistogram("quell_delivery_latency_seconds", "", {});
  EXPECT_EQ(latency.Count({{"channel", "ops"}}), 4U);
  const std::string text = registry.Render();
  EXPECT_NE(text.find("quell_delivery_latency_seconds_bucket{channel=\"ops\",le=\"0.05\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("quell_delivery_latency_seconds_bucket{channel=\"ops\",le=\"1\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("quell_delivery_latency_seconds_bucket{channel=\"ops\",le=\"2.5\"} 4\n"),
            std::string::npos);
  EXPECT_NE(text.find("quell_delivery_latency_seconds_count{channel=\"ops\"} 4\n"),
            std::string::npos);
}

TEST(RunMetricsTest, RefreshesStoreGaugesAndKeepsThemOnFailure) {
  MetricsRegistry registry;
  testing::FakeClock clock(kAt);
  RunMetrics metrics(registry, clock);
  testing::FakeIncidentStore store;
  core::Incident open;
  open.key = "a";
  open.status = core::IncidentStatus::kOpen;
  store.state().incidents["a"] = open;
  core::Incident resolved = open;
  resolved.key = "b";
  resolved.status = core::IncidentStatus::kResolved;
  store.state().incidents["b"] = resolved;
  for (auto [id, status] :
       {std::pair{"k1", core::OutboxStatus::kPending},
        std::pair{"k2", core::OutboxStatus::kPending}, std::pair{"k3", core::OutboxStatus::kDead},
        std::pair{"k4", core::OutboxStatus::kGrouped}, std::pair{"k5", core::OutboxStatus::kMuted},
        std::pair{"k6", core::OutboxStatus::kMuted},
        std::pair{"k7", core::OutboxStatus::kSilenced}}) {
    core::OutboxRow row;
    row.idempotency_key = id;
    row.status = status;
    store.state().outbox[id] = row;
  }
  ASSERT_TRUE(metrics.RefreshStoreGauges(store).ok());
  auto rows = registry.AddGauge("quell_outbox_rows", "");
  EXPECT_EQ(registry.AddGauge("quell_open_incidents", "").Value(), 1);
  EXPECT_EQ(rows.Value({{"status", "pending"}}), 2);
  EXPECT_EQ(rows.Value({{"status", "dead"}}), 1);
  EXPECT_EQ(rows.Value({{"status", "grouped"}}), 1);  // members waiting for their group
  // What a maintenance window and a silence held back: every status is counted.
  EXPECT_EQ(rows.Value({{"status", "muted"}}), 2);
  EXPECT_EQ(rows.Value({{"status", "silenced"}}), 1);
  EXPECT_NE(registry.Render().find("quell_outbox_rows{status=\"dropped\"} 0\n"), std::string::npos);
  EXPECT_NE(registry.Render().find("quell_outbox_rows{status=\"superseded\"} 0\n"),
            std::string::npos);

  store.state().outbox.clear();
  store.FailNextCount(1);
  EXPECT_FALSE(metrics.RefreshStoreGauges(store).ok());
  EXPECT_EQ(rows.Value({{"status", "pending"}}), 2);
  EXPECT_EQ(registry.AddCounter("quell_store_refresh_failures_total", "").Value(), 1);
  ASSERT_TRUE(metrics.RefreshStoreGauges(store).ok());
  EXPECT_EQ(rows.Value({{"status", "pending"}}), 0);  // a status that emptied goes to 0
}

TEST(OutcomeRecorderTallyTest, CountsAttemptsFailuresAndLatencyPerChannel) {
  testing::FakeOutboxStore outbox;
  testing::FakeClock clock(kAt);
  std::vector<core::OutboxRow> rows;
  for (auto [id, channel] : {std::pair{"k1", "ops"}, std::pair{"k2", "ops"}, std::pair{"k3", "sms"},
                             std::pair{"k4", "sms"}}) {
    core::OutboxRow row;
    row.idempotency_key = id;
    row.key = id;
    row.channel = channel;
    row.next_attempt_at = kAt;
    row.created_at = kAt - seconds(3);
    outbox.Add(row);
  }
  auto claimed = outbox.ClaimDue("me", kAt, seconds(60), 10);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 4U);
  clock.SleepFor(milliseconds(250));
  DispatchReport report;
  OutcomeRecorder recorder(outbox, clock, "me", 10, DeadLetterRoute{}, report);
  auto outcome = [](const core::OutboxRow& row, core::OutboxOutcome::Kind kind) {
    core::OutboxOutcome o;
    o.kind = kind;
    o.idempotency_key = row.idempotency_key;
    o.next_attempt_at = row.next_attempt_at + seconds(60);
    return o;
  };
  recorder.Add((*claimed)[0], outcome((*claimed)[0], core::OutboxOutcome::Kind::kSent));
  recorder.Add((*claimed)[1], outcome((*claimed)[1], core::OutboxOutcome::Kind::kReschedule));
  recorder.Add((*claimed)[2], outcome((*claimed)[2], core::OutboxOutcome::Kind::kDead));
  recorder.Add((*claimed)[3], outcome((*claimed)[3], core::OutboxOutcome::Kind::kDefer));
  recorder.Flush();

  ASSERT_EQ(report.by_channel.size(), 2U);
  const ChannelTally& ops = report.by_channel.at("ops");
  EXPECT_EQ(ops.attempts, 2U);
  EXPECT_EQ(ops.failures, 1U);
  ASSERT_EQ(ops.delivery_latencies.size(), 1U);
  EXPECT_EQ(ops.delivery_latencies[0], milliseconds(3250));
  const ChannelTally& sms = report.by_channel.at("sms");
  EXPECT_EQ(sms.attempts, 1U);  // the deferred row was held, not attempted
  EXPECT_EQ(sms.failures, 1U);
  EXPECT_TRUE(sms.delivery_latencies.empty());
}

TEST(OutcomeRecorderTallyTest, NoLatencyForASendWhoseLeaseWasLost) {
  testing::FakeOutboxStore outbox;
  testing::FakeClock clock(kAt);
  core::OutboxRow row;
  row.idempotency_key = "k1";
  row.key = "k1";
  row.channel = "ops";
  row.next_attempt_at = kAt;
  row.created_at = kAt;
  outbox.Add(row);
  auto claimed = outbox.ClaimDue("me", kAt, seconds(60), 10);
  ASSERT_TRUE(claimed.ok());
  outbox.LoseLeaseBeforeRecord("k1");
  DispatchReport report;
  OutcomeRecorder recorder(outbox, clock, "me", 10, DeadLetterRoute{}, report);
  core::OutboxOutcome sent;
  sent.idempotency_key = "k1";
  recorder.Add((*claimed)[0], sent);
  recorder.Flush();
  EXPECT_EQ(report.lost_leases, 1U);
  EXPECT_EQ(report.by_channel.at("ops").attempts, 1U);
  EXPECT_TRUE(report.by_channel.at("ops").delivery_latencies.empty());
}

}  // namespace
}  // namespace quell::app
