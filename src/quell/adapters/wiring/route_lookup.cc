#include "quell/adapters/wiring/route_lookup.h"

#include <map>
#include <utility>

namespace quell::wiring {

app::RouteLookup RoutesFromConfig(const config::Config& config) {
  std::map<std::string, app::Route, std::less<>> routes;
  for (const auto& condition : config.error_conditions) {
    routes[condition.common.name] = app::Route{condition.common.channels, condition.common.shadow};
  }
  for (const auto& entry : config.metric_conditions) {
    const core::ConditionCommon& common = entry.condition.common;
    routes[common.name] = app::Route{common.channels, common.shadow};
  }
  return [routes = std::move(routes)](std::string_view condition) -> std::optional<app::Route> {
    auto it = routes.find(condition);
    if (it == routes.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace quell::wiring
