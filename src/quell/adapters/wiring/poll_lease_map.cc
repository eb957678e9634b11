#include "quell/adapters/wiring/poll_lease_map.h"

#include <algorithm>
#include <string>

#include "quell/adapters/wiring/sentry_sources.h"
#include "quell/app/poll_leases.h"

namespace quell::wiring {
namespace {

void AddOne(std::vector<app::ExpectedLease>& out, std::string lease, const std::string& condition) {
  auto it = std::find_if(out.begin(), out.end(),
                         [&lease](const app::ExpectedLease& e) { return e.lease == lease; });
  if (it == out.end()) it = out.insert(out.end(), app::ExpectedLease{std::move(lease), {}});
  it->conditions.push_back(condition);
}

// The condition's lease, or one per shard of a sharded condition, as app::Poller names them.
void Add(std::vector<app::ExpectedLease>& out, std::string_view source,
         const core::ConditionCommon& common) {
  for (app::PollPart& part : app::PollPartsOf(common, source)) {
    AddOne(out, std::move(part.lease), common.name);
  }
}

}  // namespace

std::vector<app::ExpectedLease> ExpectedPollLeases(const config::Config& config) {
  std::vector<app::ExpectedLease> out;
  for (const auto& condition : config.error_conditions) {
    Add(out, kInfraiErrorsSource, condition.common);
  }
  for (const auto& entry : config.metric_conditions) {
    const auto& common = entry.condition.common;
    const std::string_view source = entry.source == config::MetricSourceKind::kInfrai
                                        ? kInfraiMetricsSource
                                        : kPrometheusSource;
    Add(out, source, common);
  }
  for (const auto& entry : config.sentry_conditions) {
    Add(out, kSentrySource, entry.condition.common);
  }
  for (const auto& entry : config.datadog_conditions) {
    Add(out, kDatadogSource, entry.condition.common);
  }
  for (const auto& condition : config.push_conditions) Add(out, kPushSource, condition.common);
  return out;
}

}  // namespace quell::wiring
