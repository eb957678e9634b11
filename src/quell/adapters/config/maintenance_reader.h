#pragma once

#include <vector>

#include "quell/adapters/config/yaml_reader.h"
#include "quell/core/delivery/maintenance_window.h"
#include "quell/core/ports/zone_rules.h"

namespace quell::config {

// The top-level `maintenance:` list: each window's name, key glob, label matchers, IANA zone
// (checked against `zones`, so an unknown zone fails at load and in `config check` alike),
// weekdays and "HH:MM-HH:MM" times, each error at its line.
void ReadMaintenance(MapReader& top, const core::ZoneRules& zones,
                     std::vector<core::MaintenanceWindow>& out);

}  // namespace quell::config
