#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "quell/core/engine/incident.h"
#include "quell/core/ports/operator_store.h"
#include "quell/core/text/time.h"

namespace quell::app {

// One observation on an incident's timeline: a decision log line, or an observation mark (an
// unknown or stale observation that changed nothing, which the log leaves out).
struct TimelineObservation {
  core::WallTime at;
  std::string poll_id;
  uint64_t generation = 0;
  // What the page draws: unhealthy (notify, update_only), healthy (wait_for_health, resolve,
  // ignore), none (a manual resolve: an operator, not a poll), unknown (a pushed key's resolve
  // for want of pushes, reason expired), and for a mark the observation's own health (unknown
  // for decision unknown).
  std::string health;
  std::string decision;             // DecisionName
  std::string reason;               // ReasonName; empty when none
  std::optional<uint64_t> version;  // the incident's after a decision line; nullopt for a mark
};

// An incident's story, each list oldest first and at most the newest `limit` entries.
struct IncidentTimeline {
  std::string key;
  std::vector<TimelineObservation> observations;
  std::vector<core::LoggedAttempt> attempts;
  std::vector<core::GenerationSpan> generations;
};

// The health a decision log line stands for (see TimelineObservation::health).
const char* HealthOfDecision(const std::string& decision, const std::string& reason);

// Merges what the store keeps of `incident` (ReadTimeline with the same `limit`) into its
// timeline: decisions and marks oldest first (a decision before a mark at the same instant),
// the newest `limit` of them.
// The incident's current generation is listed even when its log lines were pruned, with the
// incident's own opened_at and resolved_at where the log has none.
IncidentTimeline BuildTimeline(const core::Incident& incident, core::StoredTimeline stored,
                               size_t limit);

}  // namespace quell::app
