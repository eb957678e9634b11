#pragma once

#include <string>

#include "quell/core/engine/decision.h"
#include "quell/core/engine/observation.h"

namespace quell::jsonl {

// Appends the contract's decision line, newline included:
//   {"at":"...","key":"...","decision":"notify","reason":"open","generation":1,"version":1}
// "reason" appears only when the decision has one.
void AppendDecisionLine(std::string& out, const core::Observation& observation,
                        const core::Decision& decision);

}  // namespace quell::jsonl
