#pragma once

#include "quell/core/engine/decision.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/policy.h"
#include "quell/core/text/time.h"

namespace quell::core {

// Whether an open incident's cooldown has run out at `at` (or it was never notified).
bool CooldownElapsed(const Incident& incident, WallTime at, const Policy& policy);

// Past the cooldown, what holds a renotify back: acknowledged, which outranks the renotify
// limit, then the limit; kNone when a renotify goes out. Evaluate records it; a quiet sighting
// (quiet_sighting.h) skips it once it was recorded.
Reason WhyNoRenotify(const Incident& incident, const Policy& policy);

}  // namespace quell::core
