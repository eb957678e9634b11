#include "quell/adapters/wiring/route_lookup.h"

#include <map>
#include <utility>

#include "quell/adapters/templates/incident_view.h"

namespace quell::wiring {

app::RouteLookup RoutesFromConfig(const config::Config& config) {
  std::map<std::string, app::Route, std::less<>> routes;
  // A condition with `route:` picks channels per incident: left out, so a resolve by hand
  // goes to the channels that carried the incident's rows.
  auto add = [&routes](const core::ConditionCommon& common) {
    if (!common.routes.empty()) return;
    // With escalation, every tier: the resolve reaches those whose open was live (see
    // app::CancelUnwantedFollowUps), no others.
    std::vector<std::string> channels = common.channels;
    if (!common.escalation.empty()) {
      channels.clear();
      for (const core::EscalationTier& tier : common.escalation) {
        channels.insert(channels.end(), tier.channels.begin(), tier.channels.end());
      }
    }
    routes[common.name] = app::Route{std::move(channels), common.shadow};
  };
  for (const auto& condition : config.error_conditions) add(condition.common);
  for (const auto& entry : config.metric_conditions) add(entry.condition.common);
  for (const auto& condition : config.push_conditions) add(condition.common);
  for (const auto& entry : config.sentry_conditions) add(entry.condition.common);
  for (const auto& entry : config.datadog_conditions) add(entry.condition.common);
  return [routes = std::move(routes)](std::string_view condition) -> std::optional<app::Route> {
    auto it = routes.find(condition);
    if (it == routes.end()) return std::nullopt;
    return it->second;
  };
}

std::function<std::string(std::string_view payload)> SeverityFromConfig(
    const config::Config& config) {
  templates::ViewOptions view;
  for (const auto& [condition, severity] : config.condition_severity) {
    view.condition_severity.emplace(condition, severity);
  }
  return [view = std::move(view)](std::string_view payload) -> std::string {
    auto parsed = templates::ParseIncidentView(payload, view);
    return parsed ? parsed->severity : view.default_severity;
  };
}

}  // namespace quell::wiring
