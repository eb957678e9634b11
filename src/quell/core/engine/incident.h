#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "quell/core/engine/flap_history.h"
#include "quell/core/engine/labels.h"
#include "quell/core/text/time.h"

namespace quell::core {

// kNone: the key has never opened. A resolved key keeps its record so that a re-open can start
// the next generation and so that stale observations can still be recognised.
enum class IncidentStatus : uint8_t { kNone, kOpen, kResolved };

const char* IncidentStatusName(IncidentStatus status);

// The durable state behind one dedupe key. One record per key: "at most one open incident per
// key" holds by construction, and `generation` tells one outage of the key from the next.
struct Incident {
  std::string key;
  std::string condition;
  Labels labels;            // from the latest unhealthy observation that carried any
  uint64_t generation = 0;  // 0 until the first open; +1 at each new open
  IncidentStatus status = IncidentStatus::kNone;
  uint64_t version = 0;  // +1 on every change; the store's compare-and-set token

  std::optional<WallTime> opened_at;         // this generation's open
  std::optional<WallTime> first_seen_at;     // the key's first unhealthy observation, ever
  std::optional<WallTime> last_seen_at;      // latest unhealthy observation
  std::optional<WallTime> last_observed_at;  // latest observation that was applied; stale guard
  std::optional<WallTime> last_notified_at;
  std::optional<WallTime> resolved_at;

  uint32_t healthy_streak = 0;
  // Consecutive unhealthy observations while not open: a key is pending until it reaches
  // Policy::unhealthy_polls_to_open. 0 once open, and after a healthy observation.
  uint32_t unhealthy_streak = 0;
  uint64_t event_count = 0;     // unhealthy observations in this generation
  uint32_t renotify_count = 0;  // cooldown renotifies in this generation

  FlapHistory flap_history;  // recorded only when the policy enables flap damping
  bool flapping = false;

  std::optional<WallTime> acked_at;  // an acknowledged incident is not renotified
  std::string acked_by;

  // The source's own event count (an error group's count) at the latest unhealthy observation
  // that stated one; the count the latest message reported; and how many of those arrived since
  // the message before it (the whole count for a generation's first message). Kept on the
  // record so that a message can be rebuilt from it alone.
  std::optional<uint64_t> upstream_count;
  std::optional<uint64_t> upstream_count_at_message;
  std::optional<uint64_t> upstream_count_since_previous_message;

  std::vector<std::string> recent_evidence;  // newest last, at most Policy::evidence_limit
  // The fingerprint of what the newest evidence was built from (Observation's); nullopt when
  // unknown or when there is none.
  std::optional<uint64_t> evidence_fingerprint;

  // A manual resolve holds the key resolved: while `held`, unhealthy observations are recorded
  // (last seen, event count, evidence) but open no new generation. The hold ends at the first
  // healthy observation, or once `held_until` is reached when the operator bounded it.
  bool held = false;
  std::optional<WallTime> held_until;

  bool is_open() const { return status == IncidentStatus::kOpen; }
};

}  // namespace quell::core
