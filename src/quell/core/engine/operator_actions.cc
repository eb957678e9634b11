#include "quell/core/engine/operator_actions.h"

#include <string>

namespace quell::core {

AckOutcome Acknowledge(Incident& incident, WallTime now, std::string_view by) {
  if (!incident.is_open()) return AckOutcome::kNotOpen;
  if (incident.acked_at) return AckOutcome::kAlreadyAcked;
  incident.acked_at = now;
  incident.acked_by = std::string(by);
  ++incident.version;
  return AckOutcome::kAcked;
}

Decision ResolveByHand(Incident& incident, WallTime now, std::optional<Duration> hold_for) {
  Decision d;
  d.generation = incident.generation;
  d.version = incident.version;
  if (!incident.is_open()) {
    d.kind = DecisionKind::kIgnore;
    return d;
  }
  incident.status = IncidentStatus::kResolved;
  incident.resolved_at = now;
  incident.healthy_streak = 0;
  incident.held = true;
  incident.held_until.reset();
  if (hold_for) incident.held_until = now + *hold_for;
  ++incident.version;
  d.kind = DecisionKind::kResolve;
  d.reason = Reason::kManual;
  d.transition = TransitionKind::kResolve;
  d.version = incident.version;
  d.changed = true;
  return d;
}

}  // namespace quell::core
