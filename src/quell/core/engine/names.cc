// The stable names of the core's enums, in one place so the contract is easy to audit.
#include "quell/core/engine/decision.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/observation.h"

namespace quell::core {

const char* HealthName(Health health) {
  switch (health) {
    case Health::kUnhealthy:
      return "unhealthy";
    case Health::kHealthy:
      return "healthy";
    case Health::kUnknown:
      return "unknown";
  }
  return "unknown";
}

const char* IncidentStatusName(IncidentStatus status) {
  switch (status) {
    case IncidentStatus::kNone:
      return "none";
    case IncidentStatus::kOpen:
      return "open";
    case IncidentStatus::kResolved:
      return "resolved";
  }
  return "none";
}

const char* DecisionName(DecisionKind kind) {
  switch (kind) {
    case DecisionKind::kNotify:
      return "notify";
    case DecisionKind::kUpdateOnly:
      return "update_only";
    case DecisionKind::kWaitForHealth:
      return "wait_for_health";
    case DecisionKind::kResolve:
      return "resolve";
    case DecisionKind::kIgnore:
      return "ignore";
    case DecisionKind::kUnknown:
      return "unknown";
    case DecisionKind::kStale:
      return "stale";
  }
  return "unknown";
}

const char* ReasonName(Reason reason) {
  switch (reason) {
    case Reason::kNone:
      return "";
    case Reason::kOpen:
      return "open";
    case Reason::kCooldownElapsed:
      return "cooldown_elapsed";
    case Reason::kFlapping:
      return "flapping";
    case Reason::kRenotifyLimit:
      return "renotify_limit";
    case Reason::kAcknowledged:
      return "acknowledged";
    case Reason::kMinOpen:
      return "min_open";
    case Reason::kManual:
      return "manual";
    case Reason::kManuallyResolved:
      return "manually_resolved";
    case Reason::kHoldReleased:
      return "hold_released";
    case Reason::kPending:
      return "pending";
    case Reason::kExpired:
      return "expired";
  }
  return "";
}

const char* TransitionName(TransitionKind kind) {
  switch (kind) {
    case TransitionKind::kOpen:
      return "open";
    case TransitionKind::kRenotify:
      return "renotify";
    case TransitionKind::kResolve:
      return "resolve";
  }
  return "open";
}

}  // namespace quell::core
