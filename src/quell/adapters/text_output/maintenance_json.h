#pragma once

#include <string>

#include "quell/core/delivery/maintenance_window.h"
#include "quell/core/ports/one_off_window.h"
#include "quell/core/ports/zone_rules.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::text_output {

// One maintenance window as `quell maintenance list` prints it and GET /v1/maintenance lists
// it, seen at `at`: name, keys, labels, time_zone, weekdays, times (as the config writes them),
// active, and its current or next occurrence as start/end (RFC 3339 UTC) and
// start_local/end_local (the window's zone, no offset); those four are absent when the window
// has no occurrence. kNotFound when `zones` does not know the window's zone.
core::Result<std::string> MaintenanceWindowJson(const core::MaintenanceWindow& window,
                                                const core::ZoneRules& zones, core::WallTime at);

// One operator-added window as GET /v1/maintenance lists it under "one_off" and its POST routes
// answer it, seen at `at`: id, name, keys, labels, starts_at, ends_at, reason, created_by,
// created_at (RFC 3339 UTC) and active.
std::string OneOffWindowJson(const core::OneOffWindow& window, core::WallTime at);

}  // namespace quell::text_output
