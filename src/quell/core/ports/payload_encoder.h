#pragma once

#include <string>

#include "quell/core/decision.h"
#include "quell/core/incident.h"

namespace quell::core {

// Renders the outbox payload: the incident snapshot at a transition. Pure; thread-compatible.
class PayloadEncoder {
 public:
  virtual ~PayloadEncoder() = default;
  // Replaces `out` with the payload for `incident` (already in its post-transition state).
  virtual void Encode(const Incident& incident, TransitionKind transition,
                      std::string& out) const = 0;
};

}  // namespace quell::core
