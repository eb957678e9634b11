#pragma once

#include <string_view>
#include <vector>

#include "quell/adapters/config/config.h"
#include "quell/app/cluster_status.h"
#include "quell/app/poll_leases.h"

namespace quell::wiring {

// The poller's name of each source a condition reads (and so of its lease, app/poll_leases.h).
inline constexpr std::string_view kInfraiErrorsSource = "infrai error groups";
inline constexpr std::string_view kInfraiMetricsSource = "infrai metrics";
inline constexpr std::string_view kPrometheusSource = "prometheus";
inline constexpr std::string_view kDatadogSource = "datadog";
// A push condition's stale sweep: no remote, the store's open incidents only.
inline constexpr std::string_view kPushSource = app::kPushSource;

// The poll leases `config` polls under, each with its conditions, in the order of the config's
// conditions: what `quell status` expects to see held.
std::vector<app::ExpectedLease> ExpectedPollLeases(const config::Config& config);

}  // namespace quell::wiring
