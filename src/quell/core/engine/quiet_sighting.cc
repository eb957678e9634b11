#include "quell/core/engine/quiet_sighting.h"

#include "quell/core/engine/renotify_gate.h"

namespace quell::core {
namespace {

// Whether the last recorded sighting already recorded that same reason: it was past the
// cooldown too (a renotify then would have restarted it), and an ack, which outranks the limit,
// came before it.
bool WhyNotRecorded(const Incident& incident, const Policy& policy, Reason why) {
  if (why == Reason::kNone || !incident.last_seen_at) return false;
  if (!CooldownElapsed(incident, *incident.last_seen_at, policy)) return false;
  return why != Reason::kAcknowledged || *incident.acked_at <= *incident.last_seen_at;
}

}  // namespace

bool IsQuietSighting(const Incident& incident, const Observation& observation, const Policy& policy,
                     Duration refresh) {
  if (observation.health != Health::kUnhealthy || observation.expire) return false;
  if (!incident.is_open() || policy.flap || incident.healthy_streak != 0) return false;
  const WallTime at = observation.at;
  // Not later than the last applied observation: Evaluate's stale, not this.
  if (incident.last_observed_at && at <= *incident.last_observed_at) return false;
  if (!incident.last_seen_at || at - *incident.last_seen_at >= refresh) return false;
  // A renotify is due, or why not (acknowledged, renotify_limit) is to be recorded; once
  // recorded, the same why-not is news again only at the refresh (an incident acked for hours
  // would otherwise write a decision line every poll).
  if (CooldownElapsed(incident, at, policy) &&
      !WhyNotRecorded(incident, policy, WhyNoRenotify(incident, policy))) {
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

Decision QuietSightingDecision(const Incident& incident, WallTime at, const Policy& policy) {
  Decision d;
  d.kind = DecisionKind::kUpdateOnly;
  if (CooldownElapsed(incident, at, policy)) d.reason = WhyNoRenotify(incident, policy);
  d.generation = incident.generation;
  d.version = incident.version;
  return d;
}

}  // namespace quell::core
