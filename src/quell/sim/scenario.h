#pragma once

#include <nlohmann/json.hpp>

#include "quell/core/result.h"
#include "quell/sim/state.h"

namespace quell::sim {

// Scenario files (JSON; the format is in docs/simulator.md):
//   {"clock": {"start": "...", "advance_per_poll": "1m"}, "config": {"page_size": 100},
//    "groups": [...], "generate_groups": {"count": 10000}, "series": [...], "faults": [...],
//    "timeline": [{"poll": 2, "actions": [...]}, {"after": "5m", "actions": [...]}]}
// Loading resets the state first, so a scenario always starts from the same place.
core::Status LoadScenario(SimState& state, const nlohmann::json& scenario);

// One action: capture, event, open, resolve, metric, fault, clear_faults, advance.
// Fails with kInvalidArgument (bad action) or kNotFound (unknown group).
core::Status ApplyAction(SimState& state, const nlohmann::json& action);

// Applies every timeline step whose poll number or time has come, in file order.
core::Status RunDueSteps(SimState& state);

// Reads a Go-style duration string at `key` (absent: nullopt).
core::Result<std::optional<core::Duration>> DurationField(const nlohmann::json& j, const char* key);

}  // namespace quell::sim
