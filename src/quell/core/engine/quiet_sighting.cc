#include "quell/core/engine/quiet_sighting.h"

namespace quell::core {

bool IsQuietSighting(const Incident& incident, const Observation& observation, const Policy& policy,
                     Duration refresh) {
  if (observation.health != Health::kUnhealthy || observation.expire) return false;
  if (!incident.is_open() || policy.flap || incident.healthy_streak != 0) return false;
  const WallTime at = observation.at;
  // Not later than the last applied observation: Evaluate's stale, not this.
  if (incident.last_observed_at && at <= *incident.last_observed_at) return false;
  if (!incident.last_seen_at || at - *incident.last_seen_at >= refresh) return false;
  // A renotify is due, or why not (acknowledged, renotify_limit) is to be recorded.
  if (!incident.last_notified_at || at - *incident.last_notified_at >= policy.cooldown) {
    return false;
  }
  if (!observation.labels.empty() && observation.labels != incident.labels) return false;
  // Only a sighting that carries its upstream count (an error group's) can be quiet: a message
  // about one without it (a metric, a monitor) says "failing in N polls" from event_count,
  // which must then count every poll.
  if (!observation.upstream_count || observation.upstream_count != incident.upstream_count) {
    return false;
  }
  // Evaluate's AppendEvidence would add this entry; the same as the newest adds nothing new.
  const bool adds_evidence =
      !observation.evidence.empty() && observation.evidence != "{}" && policy.evidence_limit > 0;
  return !adds_evidence || (!incident.recent_evidence.empty() &&
                            incident.recent_evidence.back() == observation.evidence);
}

Decision QuietSightingDecision(const Incident& incident) {
  Decision d;
  d.kind = DecisionKind::kUpdateOnly;
  d.generation = incident.generation;
  d.version = incident.version;
  return d;
}

}  // namespace quell::core
