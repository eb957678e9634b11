#include "quell/app/run_metrics.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>

#include "quell/core/engine/decision.h"
#include "quell/core/ports/outbox_row.h"

namespace quell::app {
namespace {

constexpr std::array kDecisions = {
    core::DecisionKind::kNotify,        core::DecisionKind::kUpdateOnly,
    core::DecisionKind::kWaitForHealth, core::DecisionKind::kResolve,
    core::DecisionKind::kIgnore,        core::DecisionKind::kUnknown,
    core::DecisionKind::kStale};
// Every status, so what a window, a silence or an operator held back shows as well as what went.
constexpr std::array kStatuses = {
    core::OutboxStatus::kPending,  core::OutboxStatus::kInFlight, core::OutboxStatus::kSent,
    core::OutboxStatus::kDead,     core::OutboxStatus::kShadow,   core::OutboxStatus::kSuperseded,
    core::OutboxStatus::kFolded,   core::OutboxStatus::kGrouped,  core::OutboxStatus::kSilenced,
    core::OutboxStatus::kDropped,  core::OutboxStatus::kMuted,    core::OutboxStatus::kCancelled,
    core::OutboxStatus::kInhibited};

double Seconds(core::Duration d) { return std::chrono::duration<double>(d).count(); }
double UnixSeconds(core::WallTime t) { return Seconds(t.time_since_epoch()); }

}  // namespace

RunMetrics::RunMetrics(MetricsRegistry& registry, core::Clock& clock)
    : cycles_(registry.AddCounter("quell_poll_cycles_total",
                                  "Poll cycles ended, by result (ok: every source answered in "
                                  "full and every condition committed).")),
      polls_(registry.AddCounter("quell_polls_total", "Condition polls, by condition.")),
      poll_failures_(registry.AddCounter(
          "quell_poll_failures_total",
          "Condition polls that failed, by condition and reason (source: the poll failed or was "
          "partial; apply: the observations did not commit).")),
      observations_(
          registry.AddCounter("quell_observations_total", "Observations applied, by decision.")),
      last_complete_cycle_(registry.AddGauge(
          "quell_last_complete_cycle_timestamp_seconds",
          "Unix time at which the last poll cycle ended, whatever its sources did.")),
      last_successful_cycle_(
          registry.AddGauge("quell_last_successful_cycle_timestamp_seconds",
                            "Unix time at which the last cycle with result ok ended.")),
      last_committed_cycle_(registry.AddGauge(
          "quell_last_committed_cycle_timestamp_seconds",
          "Unix time at which the last cycle ended in which every condition committed (a failed "
          "source's unknowns included); /healthz follows it.")),
      send_attempts_(registry.AddCounter("quell_send_attempts_total",
                                         "Outbox rows handed to a channel, by channel.")),
      send_failures_(registry.AddCounter(
          "quell_send_failures_total",
          "Send attempts that did not end sent (retried later or dead), by channel.")),
      delivery_latency_(registry.AddHistogram(
          "quell_delivery_latency_seconds",
          "From a transition's commit to the recording of its delivery, by channel.",
          {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60})),
      open_incidents_(registry.AddGauge("quell_open_incidents",
                                        "Open incidents in the store, over every condition.")),
      outbox_rows_(registry.AddGauge("quell_outbox_rows", "Outbox rows in the store, by status.")),
      empty_polls_(registry.AddGauge(
          "quell_condition_empty_polls",
          "Consecutive polls whose answer left a metric condition no series, by condition; past "
          "its no_series_warn_after the log warns (poll.no_series).")),
      refresh_failures_(registry.AddCounter(
          "quell_store_refresh_failures_total",
          "Failed reads of the store gauges (quell_open_incidents, quell_outbox_rows).")),
      lease_held_(registry.AddGauge(
          "quell_poll_lease_held",
          "1 while this instance holds the poll lease (and polls its group), else 0, by lease.")),
      lease_acquired_(registry.AddCounter("quell_poll_lease_acquired_total",
                                          "Poll leases this instance came to hold, by lease.")),
      lease_takeovers_(registry.AddCounter(
          "quell_poll_lease_takeovers_total",
          "Poll leases taken from a previous holder that had not released them (it died, hung "
          "or lost the store), by lease.")),
      lease_lost_(registry.AddCounter(
          "quell_poll_lease_lost_total",
          "Poll leases this instance lost: taken over, or not renewed in time, by lease.")),
      poll_fenced_(registry.AddCounter(
          "quell_poll_fenced_total",
          "Polls refused at their commit because another instance had taken the lease over, by "
          "condition.")),
      clock_(clock) {
  // Series that exist from the start, so rate() and absent() see a zero, not a gap.
  cycles_.Add({{"result", "ok"}}, 0);
  cycles_.Add({{"result", "failed"}}, 0);
  for (core::DecisionKind kind : kDecisions) {
    observations_.Add({{"decision", core::DecisionName(kind)}}, 0);
  }
  open_incidents_.Set(0);
  for (core::OutboxStatus status : kStatuses) {
    outbox_rows_.Set({{"status", core::OutboxStatusName(status)}}, 0);
  }
  refresh_failures_.Add({}, 0);
}

void RunMetrics::OnCycleStart(const std::string& /*run_id*/, core::WallTime /*at*/) {}

void RunMetrics::OnCycleEnd(const std::string& /*run_id*/, const CycleReport& report,
                            core::WallTime at) {
  for (const ConditionOutcome& c : report.conditions) {
    polls_.Add({{"condition", c.condition}});
    if (!c.source_ok) poll_failures_.Add({{"condition", c.condition}, {"reason", "source"}});
    if (!c.applied) poll_failures_.Add({{"condition", c.condition}, {"reason", "apply"}});
    if (c.empty_polls) {
      empty_polls_.Set({{"condition", c.condition}}, static_cast<double>(*c.empty_polls));
    }
    for (size_t i = 0; i < kDecisions.size(); ++i) {
      const uint64_t n = c.summary.poll.by_decision[static_cast<size_t>(kDecisions[i])];
      if (n > 0) {
        observations_.Add({{"decision", core::DecisionName(kDecisions[i])}},
                          static_cast<double>(n));
      }
    }
  }
  const bool ok = report.ok();
  cycles_.Add({{"result", ok ? "ok" : "failed"}});
  last_complete_cycle_.Set(UnixSeconds(at));
  if (ok) last_successful_cycle_.Set(UnixSeconds(at));
  last_complete_us_.store(at.time_since_epoch().count(), std::memory_order_relaxed);
  const bool committed = std::all_of(report.conditions.begin(), report.conditions.end(),
                                     [](const ConditionOutcome& c) { return c.applied; });
  if (committed) {
    last_committed_cycle_.Set(UnixSeconds(at));
    // The monotonic reading first: a reader that sees the new wall time sees its age too.
    last_committed_mono_us_.store(clock_.Monotonic().time_since_epoch().count(),
                                  std::memory_order_relaxed);
    last_committed_us_.store(at.time_since_epoch().count(), std::memory_order_relaxed);
  }
}

void RunMetrics::OnDispatch(const DispatchReport& report, core::WallTime /*at*/) {
  for (const auto& [channel, tally] : report.by_channel) {
    const MetricLabels labels = {{"channel", channel}};
    send_attempts_.Add(labels, static_cast<double>(tally.attempts));
    send_failures_.Add(labels, static_cast<double>(tally.failures));
    for (core::Duration latency : tally.delivery_latencies) {
      delivery_latency_.Observe(labels, Seconds(latency));
    }
  }
}

void RunMetrics::OnLeasesWanted(const std::vector<std::string>& leases) {
  for (const std::string& lease : leases) {
    const MetricLabels labels = {{"lease", lease}};
    lease_held_.Set(labels, 0);
    lease_acquired_.Add(labels, 0);
    lease_takeovers_.Add(labels, 0);
    lease_lost_.Add(labels, 0);
  }
}

void RunMetrics::OnLeaseAcquired(std::string_view lease, uint64_t /*token*/, bool takeover) {
  const MetricLabels labels = {{"lease", std::string(lease)}};
  lease_held_.Set(labels, 1);
  lease_acquired_.Add(labels);
  if (takeover) lease_takeovers_.Add(labels);
}

void RunMetrics::OnLeaseLost(std::string_view lease, uint64_t /*token*/) {
  const MetricLabels labels = {{"lease", std::string(lease)}};
  lease_held_.Set(labels, 0);
  lease_lost_.Add(labels);
}

void RunMetrics::OnLeaseReleased(std::string_view lease, uint64_t /*token*/) {
  lease_held_.Set({{"lease", std::string(lease)}}, 0);
}

void RunMetrics::OnPollFenced(std::string_view condition, std::string_view /*lease*/,
                              uint64_t /*token*/) {
  poll_fenced_.Add({{"condition", std::string(condition)}});
}

core::Status RunMetrics::RefreshStoreGauges(core::IncidentStore& store) {
  auto open = store.CountOpenIncidents();
  if (!open) {
    refresh_failures_.Add();
    return open.error();
  }
  auto rows = store.CountOutboxByStatus();
  if (!rows) {
    refresh_failures_.Add();
    return rows.error();
  }
  open_incidents_.Set(static_cast<double>(*open));
  for (core::OutboxStatus status : kStatuses) {
    const auto it = rows->find(core::OutboxStatusName(status));
    outbox_rows_.Set({{"status", core::OutboxStatusName(status)}},
                     it == rows->end() ? 0 : static_cast<double>(it->second));
  }
  return {};
}

std::optional<core::WallTime> RunMetrics::LastCommittedCycle() const {
  const int64_t us = last_committed_us_.load(std::memory_order_relaxed);
  if (us == kNever) return std::nullopt;
  return core::WallTime(core::Duration(us));
}

std::optional<CommittedCycle> RunMetrics::LastCommitted() const {
  const int64_t us = last_committed_us_.load(std::memory_order_relaxed);
  if (us == kNever) return std::nullopt;
  const int64_t mono = last_committed_mono_us_.load(std::memory_order_relaxed);
  return CommittedCycle{.at = core::WallTime(core::Duration(us)),
                        .mono = core::MonoTime(core::Duration(mono))};
}

std::optional<core::WallTime> RunMetrics::LastCompleteCycle() const {
  const int64_t us = last_complete_us_.load(std::memory_order_relaxed);
  if (us == kNever) return std::nullopt;
  return core::WallTime(core::Duration(us));
}

}  // namespace quell::app
