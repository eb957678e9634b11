#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/conditions/channel_route.h"
#include "quell/core/conditions/escalation.h"
#include "quell/core/engine/incident.h"

namespace quell::app {

// Where a condition's transitions go: its flat channels or escalation tiers, and its routes
// (first match wins, each with channels or tiers of its own).
struct TargetRules {
  const std::vector<std::string>& channels;
  const std::vector<core::EscalationTier>& escalation;
  const std::vector<core::ChannelRoute>& routes;
  // The message severity of an encoded snapshot; asked only when a route matches on it.
  const std::function<std::string(std::string_view payload)>& severity_of;
};

// Every target of `incident`'s transitions (encoded as `payload`): its route's, or the
// condition's; tier opens are due `after` past the open (core::TierTarget).
std::vector<core::TierTarget> TargetsOf(const TargetRules& rules, const core::Incident& incident,
                                        std::string_view payload);

// The target `channel` is in anywhere in the rules (the condition's own first, then each
// route's), or nullopt when no rule names it: how a late open finds its tier.
std::optional<core::TierTarget> FindTarget(const TargetRules& rules, std::string_view channel);

}  // namespace quell::app
