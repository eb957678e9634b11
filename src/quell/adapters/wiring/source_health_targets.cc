#include "quell/adapters/wiring/source_health_targets.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

#include "quell/adapters/wiring/poll_lease_map.h"
#include "quell/adapters/wiring/sentry_sources.h"
#include "quell/core/conditions/source_health.h"

namespace quell::wiring {
namespace {

void AddOnce(std::vector<std::string>& out, const std::string& channel) {
  if (std::find(out.begin(), out.end(), channel) == out.end()) out.push_back(channel);
}

void AddAtOnce(std::vector<std::string>& out, const std::vector<std::string>& channels,
               const std::vector<core::EscalationTier>& tiers) {
  if (tiers.empty()) {
    for (const std::string& channel : channels) AddOnce(out, channel);
    return;
  }
  // A later tier waits for an ack that a source's incident does not need to page first.
  for (const core::EscalationTier& tier : tiers) {
    if (tier.after > core::Duration::zero()) continue;
    for (const std::string& channel : tier.channels) AddOnce(out, channel);
  }
}

class Targets {
 public:
  explicit Targets(const config::Config& config) : config_(config) {}

  void See(std::string_view source, std::optional<uint32_t> failures_to_open,
           const core::ConditionCommon& common) {
    auto [it, fresh] = targets_.try_emplace(std::string(source));
    app::SourceHealthTarget& target = it->second;
    if (fresh) {
      target.failures_to_open = failures_to_open.value_or(config_.source_failures_to_open);
      target.cooldown = config_.defaults.policy.cooldown;
      target.shadow = true;
      target.channels = config_.meta_channels;
    }
    target.shadow = target.shadow && common.shadow;
    if (!config_.meta_channels.empty()) return;
    AddAtOnce(target.channels, common.channels, common.escalation);
    for (const core::ChannelRoute& route : common.routes) {
      AddAtOnce(target.channels, route.channels, route.escalation);
    }
  }

  std::map<std::string, app::SourceHealthTarget, std::less<>> Take() { return std::move(targets_); }

 private:
  const config::Config& config_;
  std::map<std::string, app::SourceHealthTarget, std::less<>> targets_;
};

}  // namespace

std::map<std::string, app::SourceHealthTarget, std::less<>> SourceHealthTargets(
    const config::Config& config) {
  Targets targets(config);
  for (const auto& condition : config.error_conditions) {
    targets.See(kInfraiErrorsSource, config.infrai.source_failures_to_open, condition.common);
  }
  for (const auto& entry : config.metric_conditions) {
    if (entry.source == config::MetricSourceKind::kInfrai) {
      targets.See(kInfraiMetricsSource, config.infrai.source_failures_to_open,
                  entry.condition.common);
    } else {
      targets.See(kPrometheusSource, config.prometheus.source_failures_to_open,
                  entry.condition.common);
    }
  }
  for (const auto& entry : config.sentry_conditions) {
    targets.See(kSentrySource, config.sentry.source_failures_to_open, entry.condition.common);
  }
  for (const auto& entry : config.datadog_conditions) {
    targets.See(kDatadogSource, config.datadog.source_failures_to_open, entry.condition.common);
  }
  for (const auto& condition : config.push_conditions) {
    targets.See(core::PushSenderName(condition.common.name), std::nullopt, condition.common);
  }
  return targets.Take();
}

}  // namespace quell::wiring
