#include "quell/app/escalation_targets.h"

namespace quell::app {
namespace {

std::vector<core::TierTarget> Targets(const std::vector<std::string>& channels,
                                      const std::vector<core::EscalationTier>& escalation) {
  return escalation.empty() ? core::FlatTargets(channels) : core::TierTargets(escalation);
}

}  // namespace

std::vector<core::TierTarget> TargetsOf(const TargetRules& rules, const core::Incident& incident,
                                        std::string_view payload) {
  if (rules.routes.empty()) return Targets(rules.channels, rules.escalation);
  std::string severity;
  if (rules.severity_of && core::RoutesReadSeverity(rules.routes)) {
    severity = rules.severity_of(payload);
  }
  const core::ChannelRoute* route = core::MatchRoute(rules.routes, incident.labels, severity);
  if (route == nullptr) return Targets(rules.channels, rules.escalation);
  return Targets(route->channels, route->escalation);
}

std::optional<core::TierTarget> FindTarget(const TargetRules& rules, std::string_view channel) {
  const auto find = [&](const std::vector<core::TierTarget>& targets) {
    for (const core::TierTarget& target : targets) {
      if (target.channel == channel) return std::optional<core::TierTarget>(target);
    }
    return std::optional<core::TierTarget>();
  };
  if (auto found = find(Targets(rules.channels, rules.escalation))) return found;
  for (const core::ChannelRoute& route : rules.routes) {
    if (auto found = find(Targets(route.channels, route.escalation))) return found;
  }
  return std::nullopt;
}

}  // namespace quell::app
