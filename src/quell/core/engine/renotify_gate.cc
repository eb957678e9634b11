#include "quell/core/engine/renotify_gate.h"

namespace quell::core {

bool CooldownElapsed(const Incident& incident, WallTime at, const Policy& policy) {
  return !incident.last_notified_at || at - *incident.last_notified_at >= policy.cooldown;
}

Reason WhyNoRenotify(const Incident& incident, const Policy& policy) {
  if (incident.acked_at) return Reason::kAcknowledged;
  if (policy.renotify_limit && incident.renotify_count >= *policy.renotify_limit) {
    return Reason::kRenotifyLimit;
  }
  return Reason::kNone;
}

}  // namespace quell::core
