#pragma once

#include "quell/adapters/config/config.h"
#include "quell/app/operator_commands.h"

namespace quell::wiring {

// The routes of a loaded config, by condition name (top-level shadow already applied): where
// an operator's resolve sends its message.
app::RouteLookup RoutesFromConfig(const config::Config& config);

}  // namespace quell::wiring
