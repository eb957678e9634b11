#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "quell/app/ops_request.h"
#include "quell/core/ports/clock.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

// How long the poll loop may go without committing a cycle before /healthz fails:
// 2 x interval + poll_deadline + grace. A healthy loop commits at least once per interval
// (plus its jitter) and a cycle whose sources all hang ends at their deadlines, so only a loop
// that is stuck, or whose store refuses every write, gets that far.
struct LivenessPolicy {
  core::Duration interval{};       // the longest poll interval of any condition
  core::Duration poll_deadline{};  // the longest a cycle's sources may take, their deadlines summed
  core::Duration grace{};
};

// 200 while the last committed cycle (or, before the first, the start-up) is no older than the
// policy's limit (`age`, measured on the monotonic clock), else 503; the JSON body says which and
// by how much, shows the cycle's wall time and "role": "polling". Pure.
OpsResponse LivenessVerdict(std::optional<core::WallTime> last_committed_cycle, core::Duration age,
                            const LivenessPolicy& policy);

// Where this instance stands among several on one store (app::LeaseKeeper).
struct PollRole {
  bool polling = false;                         // holds at least one poll lease
  std::optional<core::MonoTime> reached_store;  // the keeper's last turn that reached the store
  // Polling: since when, unbroken (a standby that took over counts its cycles' age from here).
  std::optional<core::MonoTime> polling_since = {};
};

// A standby polls nothing because other instances hold every lease: it is healthy (200,
// "role": "standby") while its lease keeper reached the store (or, before it first did, the
// start-up) no longer than the policy's limit ago (`age`), so it can take over; else 503. Pure.
OpsResponse StandbyVerdict(core::Duration age, const LivenessPolicy& policy);

// A committed cycle as a listener heard it: its wall time, shown, and the clock's monotonic
// reading then, which its age is measured from.
struct CommittedCycle {
  core::WallTime at;
  core::MonoTime mono;
};

// The age past which LivenessVerdict fails.
core::Duration LivenessLimit(const LivenessPolicy& policy);

// 200 when the store answered its ping, else 503 with the store's error. Pure.
OpsResponse ReadinessVerdict(const core::Status& store_ping);

// What the health and metrics routes read; every function is called on the ops server's
// threads, so each must be thread-safe (ping_store on its own store instance or under a lock).
struct HealthSources {
  core::Clock* clock = nullptr;
  core::MonoTime started_at;  // the clock's Monotonic() at start-up
  LivenessPolicy policy;
  // When set, read at each probe instead of `policy`: the running config's, which a reload
  // replaces (its intervals set the limit).
  std::function<LivenessPolicy()> current_policy = {};
  // The end of the last cycle in which every condition committed (RunMetrics::LastCommitted).
  std::function<std::optional<CommittedCycle>()> last_committed_cycle;
  // Unset, or nullopt from it: no poll leases (every cycle polls); else /healthz of a standby
  // follows its lease keeper (StandbyVerdict).
  std::function<std::optional<PollRole>()> role = {};
  std::function<core::Status()> ping_store;
  std::function<std::string()> render_metrics;  // e.g. MetricsRegistry::Render
};

// GET /healthz, GET /readyz and GET /metrics (text/plain; version=0.0.4), as read routes.
std::vector<OpsRoute> HealthRoutes(HealthSources sources);

inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4";

}  // namespace quell::app
