#pragma once

#include <map>
#include <string>
#include <vector>

#include "quell/adapters/config/config.h"
#include "quell/adapters/config/yaml_reader.h"
#include "quell/core/conditions/inhibition.h"

namespace quell::config {

// Where each `inhibited_by` entry of a section was written ("file:line:column: path"),
// parallel to the section's list, so the checks across conditions can point at it.
using InhibitionSites = std::vector<std::string>;

// `inhibited_by: [{condition: provider-down, equal: [tenant]}, ...]` of `section` (a condition
// or the defaults), replacing `out` and `sites` when present.
void ReadInhibitions(MapReader& section, std::vector<core::Inhibition>& out,
                     InhibitionSites& sites);

// Checks every condition's inhibited_by against the others, each problem at its entry: a name
// that is no configured condition, a condition inhibiting itself, a cycle. An entry a condition
// inherited from `defaults` that names the condition itself is dropped instead: the inhibitor
// does not hold its own pages. `sites` is keyed by condition name.
void CheckInhibitions(YamlContext& context, const std::map<std::string, InhibitionSites>& sites,
                      const InhibitionSites& default_sites, Config& config);

}  // namespace quell::config
