#include "quell/core/engine/evaluate.h"

#include <utility>

#include "quell/core/engine/renotify_gate.h"

namespace quell::core {
namespace {

Decision Unchanged(const Incident& incident, DecisionKind kind) {
  Decision d;
  d.kind = kind;
  d.generation = incident.generation;
  d.version = incident.version;
  return d;
}

Decision Changed(Incident& incident, WallTime at, DecisionKind kind, Reason reason,
                 std::optional<TransitionKind> transition) {
  ++incident.version;
  incident.last_observed_at = at;
  Decision d;
  d.kind = kind;
  d.reason = reason;
  d.transition = transition;
  d.generation = incident.generation;
  d.version = incident.version;
  d.changed = true;
  return d;
}

// Records the state for flap detection and moves the flapping flag through its hysteresis band.
void RecordFlapState(Incident& incident, bool unhealthy, const FlapDamping& flap) {
  incident.flap_history.Push(unhealthy);
  const double percent = incident.flap_history.PercentStateChange(flap.window);
  if (!incident.flapping && percent >= flap.high_percent) incident.flapping = true;
  if (incident.flapping && percent < flap.low_percent) incident.flapping = false;
}

void AppendEvidence(Incident& incident, const Observation& observation, const Policy& policy) {
  if (observation.evidence.empty() || observation.evidence == "{}" || policy.evidence_limit == 0) {
    return;
  }
  auto& ring = incident.recent_evidence;
  if (ring.size() >= policy.evidence_limit) {
    ring.erase(ring.begin(),
               ring.begin() + static_cast<std::ptrdiff_t>(ring.size() - policy.evidence_limit + 1));
  }
  ring.push_back(observation.evidence);
  incident.evidence_fingerprint = observation.evidence_fingerprint;
}

// When a key never seen failing began to fail: the source's own start (a pushed alert's
// startsAt) when it says one earlier than the observation, else the observation's time.
WallTime FirstSeen(const Observation& observation) {
  return observation.first_seen_at && *observation.first_seen_at < observation.at
             ? *observation.first_seen_at
             : observation.at;
}

void RecordSighting(Incident& incident, const Observation& observation, const Policy& policy) {
  incident.last_seen_at = observation.at;
  if (!incident.first_seen_at) incident.first_seen_at = FirstSeen(observation);
  ++incident.event_count;
  incident.healthy_streak = 0;
  if (!observation.labels.empty()) incident.labels = observation.labels;
  if (observation.upstream_count) incident.upstream_count = observation.upstream_count;
  AppendEvidence(incident, observation, policy);
}

// A message is about to go out: it reports the source's count, and how much of it is new since
// the generation's previous message. A count that went down was reset upstream: all of it is new.
void RecordMessage(Incident& incident) {
  const std::optional<uint64_t> previous = incident.upstream_count_at_message;
  const std::optional<uint64_t> now = incident.upstream_count;
  incident.upstream_count_at_message = now;
  if (!now) {
    incident.upstream_count_since_previous_message.reset();
  } else if (!previous || *previous > *now) {
    incident.upstream_count_since_previous_message = now;
  } else {
    incident.upstream_count_since_previous_message = *now - *previous;
  }
}

// The pending period: a key that is not open records each failure and opens only at the
// policy's Nth in a row. The first sightings are kept (labels, first and last seen), so the
// incident that opens knows when the failure started.
bool StillPending(Incident& incident, const Observation& observation, const Policy& policy) {
  ++incident.unhealthy_streak;
  if (incident.unhealthy_streak >= policy.unhealthy_polls_to_open) return false;
  incident.last_seen_at = observation.at;
  if (!incident.first_seen_at) incident.first_seen_at = FirstSeen(observation);
  if (!observation.labels.empty()) incident.labels = observation.labels;
  return true;
}

// A manual resolve's hold still applies at `at`: the key was not seen healthy since, and the
// operator's bound (if any) has not passed.
bool HoldActive(const Incident& incident, WallTime at) {
  return incident.held && (!incident.held_until || at < *incident.held_until);
}

void ReleaseHold(Incident& incident) {
  incident.held = false;
  incident.held_until.reset();
}

bool ContinuesFlappingIncident(const Incident& incident, WallTime at, const Policy& policy) {
  return policy.flap && incident.flapping && incident.status == IncidentStatus::kResolved &&
         incident.resolved_at && at - *incident.resolved_at <= policy.flap->reopen_within;
}

Decision OnUnhealthy(Incident& incident, const Observation& observation, const Policy& policy) {
  const WallTime at = observation.at;
  if (policy.flap) RecordFlapState(incident, true, *policy.flap);
  if (incident.key.empty()) incident.key = observation.key;
  if (incident.condition.empty()) incident.condition = observation.condition;

  if (!incident.is_open()) {
    if (HoldActive(incident, at)) {
      RecordSighting(incident, observation, policy);
      return Changed(incident, at, DecisionKind::kUpdateOnly, Reason::kManuallyResolved,
                     std::nullopt);
    }
    ReleaseHold(incident);  // a bounded hold that ran out: this failure pages as a new outage
    if (ContinuesFlappingIncident(incident, at, policy)) {
      incident.status = IncidentStatus::kOpen;
      incident.resolved_at.reset();
      incident.unhealthy_streak = 0;  // open again: nothing is pending
      RecordSighting(incident, observation, policy);
      return Changed(incident, at, DecisionKind::kUpdateOnly, Reason::kFlapping, std::nullopt);
    }
    if (StillPending(incident, observation, policy)) {
      return Changed(incident, at, DecisionKind::kUpdateOnly, Reason::kPending, std::nullopt);
    }
    // The failures that opened it count toward the new generation's events.
    const uint32_t pending_sightings = incident.unhealthy_streak - 1;
    incident.unhealthy_streak = 0;
    ++incident.generation;
    incident.status = IncidentStatus::kOpen;
    incident.opened_at = at;
    incident.resolved_at.reset();
    incident.last_notified_at = at;
    incident.event_count = pending_sightings;
    incident.renotify_count = 0;
    incident.acked_at.reset();
    incident.acked_by.clear();
    incident.recent_evidence.clear();
    incident.evidence_fingerprint.reset();
    incident.upstream_count_at_message.reset();
    RecordSighting(incident, observation, policy);
    RecordMessage(incident);
    return Changed(incident, at, DecisionKind::kNotify, Reason::kOpen, TransitionKind::kOpen);
  }

  RecordSighting(incident, observation, policy);
  if (!CooldownElapsed(incident, at, policy)) {
    return Changed(incident, at, DecisionKind::kUpdateOnly, Reason::kNone, std::nullopt);
  }
  if (const Reason why_not = WhyNoRenotify(incident, policy); why_not != Reason::kNone) {
    return Changed(incident, at, DecisionKind::kUpdateOnly, why_not, std::nullopt);
  }
  incident.last_notified_at = at;
  ++incident.renotify_count;
  RecordMessage(incident);
  return Changed(incident, at, DecisionKind::kNotify, Reason::kCooldownElapsed,
                 TransitionKind::kRenotify);
}

Decision OnHealthy(Incident& incident, const Observation& observation, const Policy& policy) {
  const WallTime at = observation.at;
  if (!incident.is_open()) {
    // A healthy observation ends a pending run: the next failure starts counting again.
    const bool was_pending = incident.unhealthy_streak > 0;
    incident.unhealthy_streak = 0;
    if (incident.held) {
      // Seen healthy once: the operator's resolve is confirmed, and the next failure pages.
      ReleaseHold(incident);
      if (policy.flap) RecordFlapState(incident, false, *policy.flap);
      return Changed(incident, at, DecisionKind::kIgnore, Reason::kHoldReleased, std::nullopt);
    }
    // A resolved key keeps its flap history current, or a flap would look like one failure.
    if (policy.flap && incident.status == IncidentStatus::kResolved) {
      RecordFlapState(incident, false, *policy.flap);
      return Changed(incident, at, DecisionKind::kIgnore, Reason::kNone, std::nullopt);
    }
    if (was_pending) {
      return Changed(incident, at, DecisionKind::kIgnore, Reason::kNone, std::nullopt);
    }
    return Unchanged(incident, DecisionKind::kIgnore);
  }
  if (policy.flap) RecordFlapState(incident, false, *policy.flap);
  ++incident.healthy_streak;
  if (incident.healthy_streak < policy.healthy_polls_to_close) {
    return Changed(incident, at, DecisionKind::kWaitForHealth, Reason::kNone, std::nullopt);
  }
  if (policy.min_open && incident.opened_at && at - *incident.opened_at < *policy.min_open) {
    return Changed(incident, at, DecisionKind::kWaitForHealth, Reason::kMinOpen, std::nullopt);
  }
  incident.status = IncidentStatus::kResolved;
  incident.resolved_at = at;
  RecordMessage(incident);
  // What the source says about the recovery (an enriched resolve) belongs with the incident.
  AppendEvidence(incident, observation, policy);
  return Changed(incident, at, DecisionKind::kResolve, Reason::kNone, TransitionKind::kResolve);
}

// A pushed key nobody refreshed within its condition's expire_after: whoever pushed it has gone
// (a receiver removed, an alert rule deleted), and an incident open forever helps nobody. It
// resolves at once, whatever its healthy streak and min_open, since no health was seen at all.
Decision OnExpired(Incident& incident, const Observation& observation) {
  const WallTime at = observation.at;
  incident.status = IncidentStatus::kResolved;
  incident.resolved_at = at;
  RecordMessage(incident);
  return Changed(incident, at, DecisionKind::kResolve, Reason::kExpired, TransitionKind::kResolve);
}

}  // namespace

Decision Evaluate(Incident& incident, const Observation& observation, const Policy& policy) {
  if (incident.last_observed_at && observation.at <= *incident.last_observed_at) {
    return Unchanged(incident, DecisionKind::kStale);
  }
  if (observation.expire) {
    // Only an open incident expires; otherwise the sweep's observation is the unknown it is.
    if (incident.is_open()) return OnExpired(incident, observation);
    return Unchanged(incident, DecisionKind::kUnknown);
  }
  switch (observation.health) {
    case Health::kUnhealthy:
      return OnUnhealthy(incident, observation, policy);
    case Health::kHealthy:
      return OnHealthy(incident, observation, policy);
    case Health::kUnknown:
      break;
  }
  return Unchanged(incident, DecisionKind::kUnknown);
}

Evaluation EvaluateCopy(Incident current, const Observation& observation, const Policy& policy) {
  Decision decision = Evaluate(current, observation, policy);
  return Evaluation{decision, std::move(current)};
}

}  // namespace quell::core
