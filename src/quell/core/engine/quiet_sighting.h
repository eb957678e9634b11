#pragma once

#include "quell/core/engine/decision.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/observation.h"
#include "quell/core/engine/policy.h"
#include "quell/core/text/time.h"

namespace quell::core {

// A quiet sighting: an open incident seen failing again inside its cooldown with nothing new,
// whose last recorded sighting is younger than `refresh`. Evaluate would decide update_only and
// move only last_seen_at, last_observed_at, event_count and version; no message depends on
// those inside the cooldown (nor, past it, while the same reason holds back the renotify, an
// ack or the renotify limit, once a recorded sighting has said so), so a poller may leave the
// sighting unrecorded (no incident write,
// no decision line, no key_groups upsert) and record it at the latest `refresh` later, or at
// the next change. Nothing new means: the healthy streak at 0, no flap damping (its history
// records every observation), and the observation's labels, upstream count and evidence as
// the incident holds them (evidence: its newest entry). docs/store.md, "Quiet sightings".
bool IsQuietSighting(const Incident& incident, const Observation& observation, const Policy& policy,
                     Duration refresh);

// The decision of a quiet sighting at `at`: update_only, the incident unchanged
// (Decision::changed false), so nothing is written; past the cooldown, with the reason no
// renotify went out (acknowledged, renotify limit).
Decision QuietSightingDecision(const Incident& incident, WallTime at, const Policy& policy);

}  // namespace quell::core
