#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "quell/core/engine/incident.h"
#include "quell/core/engine/labels.h"

namespace quell::core {

// One entry of a condition's `inhibited_by:`: while an open incident of `condition` agrees with
// an incident of the inhibited condition on every label in `equal`, the inhibited incident's
// transitions are recorded but not sent (a provider outage would otherwise page once per tenant
// feature that depends on it). An empty `equal`: any open incident of `condition` inhibits.
struct Inhibition {
  std::string condition;
  std::vector<std::string> equal;
};

// Whether `inhibitor` (an incident of rule.condition) holds an incident labelled `labels` under
// `rule`: it is open, of that condition, and every `equal` label is present on both with the same
// value (a label missing on both sides is unequal, as in Alertmanager).
bool Inhibits(const Inhibition& rule, const Incident& inhibitor, const Labels& labels);

// The first incident of `open_inhibitors` that holds `incident` under any of `rules`, or nullptr.
// An incident never holds itself.
const Incident* HoldingInhibitor(std::span<const Inhibition> rules,
                                 std::span<const Incident> open_inhibitors,
                                 const Incident& incident);

// Of the conditions named in `graph` (each condition's inhibited_by), one cycle of inhibition
// as the names along it, first repeated last ({"a", "b", "a"}); empty when there is none. A
// cycle would hold both sides' pages forever once both are open.
std::vector<std::string> FindInhibitionCycle(
    const std::map<std::string, std::vector<Inhibition>, std::less<>>& graph);

}  // namespace quell::core
