#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "quell/core/conditions/escalation.h"
#include "quell/core/engine/labels.h"

namespace quell::core {

// One entry of a condition's `route:` list. `match` names label values (exact strings) and may
// name `severity`, the message severity quell computes for the incident; an empty match is
// the catch-all. A route names either flat `channels` or `escalation` tiers (then channels is
// empty).
struct ChannelRoute {
  Labels match;  // sorted by name
  std::vector<std::string> channels;
  std::vector<EscalationTier> escalation;
};

// The first route in `routes` whose every match entry equals the incident's label (or
// `severity`); nullptr when none matches.
const ChannelRoute* MatchRoute(const std::vector<ChannelRoute>& routes, const Labels& labels,
                               std::string_view severity);

// The channels of the first route in `routes` whose every match entry equals the incident's
// label (or `severity`); nullptr when none matches (the condition's `channels:` then apply).
const std::vector<std::string>* PickRoute(const std::vector<ChannelRoute>& routes,
                                          const Labels& labels, std::string_view severity);

// Whether any route matches on severity: only then need a caller compute it.
bool RoutesReadSeverity(const std::vector<ChannelRoute>& routes);

}  // namespace quell::core
