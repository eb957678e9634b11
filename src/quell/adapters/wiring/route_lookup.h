#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "quell/adapters/config/config.h"
#include "quell/app/operator_commands.h"

namespace quell::wiring {

// The routes of a loaded config, by condition name (top-level shadow already applied): where
// an operator's resolve sends its message.
app::RouteLookup RoutesFromConfig(const config::Config& config);

// The message severity of an encoded incident snapshot as the renderer computes it (the
// condition's `severity:`, else the source's level, else "error"): what a `route:` matching on
// severity compares (app::ApplyOptions::severity_of).
std::function<std::string(std::string_view payload)> SeverityFromConfig(
    const config::Config& config);

}  // namespace quell::wiring
