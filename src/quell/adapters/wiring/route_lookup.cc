#include "quell/adapters/wiring/route_lookup.h"

#include <map>
#include <utility>

#include "quell/adapters/templates/incident_view.h"
#include "quell/adapters/zones/date_zone_rules.h"
#include "quell/core/conditions/escalation.h"

namespace quell::wiring {

app::RouteLookup RoutesFromConfig(const config::Config& config) {
  // What every route shares: the channels that group and the maintenance windows.
  app::Route shared;
  for (const config::ChannelConfig& channel : config.channels) {
    if (channel.delivery.grouping)
      shared.grouping.emplace(channel.name, *channel.delivery.grouping);
  }
  shared.maintenance = config.maintenance;
  shared.zones = &zones::SystemZoneRules();
  std::map<std::string, app::Route, std::less<>> routes;
  auto add = [&routes, &shared](const core::ConditionCommon& common) {
    app::Route route = shared;
    route.shadow = common.shadow;
    // A condition with `route:` picks channels per incident: a resolve by hand goes to the
    // channels that carried the incident's rows.
    if (!common.routes.empty()) {
      route.channels_from_store = true;
    } else if (common.escalation.empty()) {
      route.channels = common.channels;
    } else {
      // Every tier: the resolve reaches those paged and whose open was live (see
      // app::CancelUnwantedFollowUps and the dispatcher's tier check), no others.
      for (core::TierTarget& target : core::TierTargets(common.escalation)) {
        route.channels.push_back(target.channel);
        if (target.tier > 0) route.tiers.emplace(target.channel, std::move(target));
      }
    }
    routes[common.name] = std::move(route);
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
