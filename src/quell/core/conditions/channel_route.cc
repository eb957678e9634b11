#include "quell/core/conditions/channel_route.h"

namespace quell::core {

const ChannelRoute* MatchRoute(const std::vector<ChannelRoute>& routes, const Labels& labels,
                               std::string_view severity) {
  for (const ChannelRoute& route : routes) {
    bool matches = true;
    for (const auto& [name, value] : route.match) {
      const std::optional<std::string_view> actual =
          name == "severity" ? std::optional<std::string_view>(severity) : FindLabel(labels, name);
      if (!actual || *actual != value) {
        matches = false;
        break;
      }
    }
    if (matches) return &route;
  }
  return nullptr;
}

const std::vector<std::string>* PickRoute(const std::vector<ChannelRoute>& routes,
                                          const Labels& labels, std::string_view severity) {
  const ChannelRoute* route = MatchRoute(routes, labels, severity);
  return route != nullptr ? &route->channels : nullptr;
}

bool RoutesReadSeverity(const std::vector<ChannelRoute>& routes) {
  for (const ChannelRoute& route : routes) {
    if (FindLabel(route.match, "severity")) return true;
  }
  return false;
}

}  // namespace quell::core
