#pragma once

#include "quell/core/engine/decision.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/observation.h"
#include "quell/core/engine/policy.h"

namespace quell::core {

// The incident state machine. Pure and deterministic: the observation's `at` is the only clock.
//
// Applies `observation` to `incident` (the key's record; a default Incident when the key is
// new) and returns what it means. On return `incident` holds the new state; when the returned
// decision has changed == false (stale, unknown, ignore) it is untouched. A decision with a
// transition must reach the outbox in the same transaction as the incident write.
//
// `policy` must pass Validate(). Mutating in place keeps a poll of a million unchanged keys free
// of copies; EvaluateCopy is the value-semantics form for callers that want both states.
Decision Evaluate(Incident& incident, const Observation& observation, const Policy& policy);

struct Evaluation {
  Decision decision;
  Incident next;
};
Evaluation EvaluateCopy(Incident current, const Observation& observation, const Policy& policy);

}  // namespace quell::core
