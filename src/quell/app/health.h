#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "quell/app/ops_request.h"
#include "quell/core/ports/clock.h"
#include "quell/core/result.h"
#include "quell/core/time.h"

namespace quell::app {

// How stale the poller may get before /healthz fails: twice the poll interval plus a grace.
struct LivenessPolicy {
  core::Duration interval{};  // the longest poll interval of any source
  core::Duration grace{};
};

// 200 while the last complete cycle (or, before the first, the start-up) is no older than
// 2 x interval + grace, else 503; the JSON body says which and by how much. Pure.
OpsResponse LivenessVerdict(std::optional<core::WallTime> last_complete_cycle,
                            core::WallTime started_at, core::WallTime now,
                            const LivenessPolicy& policy);

// 200 when the store answered its ping, else 503 with the store's error. Pure.
OpsResponse ReadinessVerdict(const core::Status& store_ping);

// What the health and metrics routes read; every function is called on the ops server's
// threads, so each must be thread-safe (ping_store on its own store instance or under a lock).
struct HealthSources {
  core::Clock* clock = nullptr;
  core::WallTime started_at;
  LivenessPolicy policy;
  std::function<std::optional<core::WallTime>()> last_complete_cycle;
  std::function<core::Status()> ping_store;
  std::function<std::string()> render_metrics;  // e.g. MetricsRegistry::Render
};

// GET /healthz, GET /readyz and GET /metrics (text/plain; version=0.0.4), as read routes.
std::vector<OpsRoute> HealthRoutes(HealthSources sources);

inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4";

}  // namespace quell::app
