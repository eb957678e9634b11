#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/app/health.h"
#include "quell/app/metrics.h"
#include "quell/app/run_listener.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/incident_store.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

// quell's own metrics (every name starts with quell_; see docs/operations.md), kept by
// following the daemon as a RunListener, plus the store gauges the daemon refreshes. Declares
// its families in `registry`, which must outlive it. Thread-safe, and never blocks beyond the
// registry's mutex.
class RunMetrics : public RunListener {
 public:
  // `clock` gives the monotonic reading of each committed cycle (LastCommitted).
  RunMetrics(MetricsRegistry& registry, core::Clock& clock);

  void OnCycleStart(const std::string& run_id, core::WallTime at) override;
  void OnCycleEnd(const std::string& run_id, const CycleReport& report, core::WallTime at) override;
  void OnDispatch(const DispatchReport& report, core::WallTime at) override;
  void OnLeasesWanted(const std::vector<std::string>& leases) override;
  void OnLeaseAcquired(std::string_view lease, uint64_t token, bool takeover) override;
  void OnLeaseLost(std::string_view lease, uint64_t token) override;
  void OnLeaseReleased(std::string_view lease, uint64_t token) override;
  void OnPollFenced(std::string_view condition, std::string_view lease, uint64_t token) override;

  // Reads open incidents and outbox rows per status from `store` (two aggregate queries) into
  // their gauges; every status is set, absent ones to 0. On failure the gauges keep their last
  // values, quell_store_refresh_failures_total counts it, and the error is returned.
  core::Status RefreshStoreGauges(core::IncidentStore& store);

  // When the last cycle ended, whatever its sources did and whether it committed; nullopt
  // before the first.
  std::optional<core::WallTime> LastCompleteCycle() const;
  // When the last cycle ended in which every condition committed its observations (unknown
  // ones for a source that failed included): the poll loop's progress, which /healthz follows.
  // nullopt before the first.
  std::optional<core::WallTime> LastCommittedCycle() const;
  // The same, with the clock's Monotonic() reading when it was heard, to measure its age on.
  std::optional<CommittedCycle> LastCommitted() const;

 private:
  MetricsRegistry::Counter cycles_;
  MetricsRegistry::Counter polls_;
  MetricsRegistry::Counter poll_failures_;
  MetricsRegistry::Counter observations_;
  MetricsRegistry::Gauge last_complete_cycle_;
  MetricsRegistry::Gauge last_successful_cycle_;
  MetricsRegistry::Gauge last_committed_cycle_;
  MetricsRegistry::Counter send_attempts_;
  MetricsRegistry::Counter send_failures_;
  MetricsRegistry::Histogram delivery_latency_;
  MetricsRegistry::Gauge open_incidents_;
  MetricsRegistry::Gauge outbox_rows_;
  MetricsRegistry::Gauge empty_polls_;
  MetricsRegistry::Counter refresh_failures_;
  MetricsRegistry::Gauge lease_held_;
  MetricsRegistry::Counter lease_acquired_;
  MetricsRegistry::Counter lease_takeovers_;
  MetricsRegistry::Counter lease_lost_;
  MetricsRegistry::Counter poll_fenced_;
  // Microseconds since the epoch of the last OnCycleEnd; kNever before it.
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::min();
  std::atomic<int64_t> last_complete_us_{kNever};
  std::atomic<int64_t> last_committed_us_{kNever};
  std::atomic<int64_t> last_committed_mono_us_{kNever};
  core::Clock& clock_;
};

}  // namespace quell::app
