#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "quell/core/engine/labels.h"
#include "quell/core/text/time.h"

namespace quell::core {

// What one poll said about one condition. kUnknown is a failed or partial poll: it carries no
// evidence of health either way, so it must never count toward resolving an incident.
enum class Health : uint8_t { kUnhealthy, kHealthy, kUnknown };

const char* HealthName(Health health);

struct Observation {
  std::string key;  // the stable dedupe key, e.g. "tenant-42:model-answer:grp-7"
  WallTime at;      // when the source observed it; the engine's only notion of time
  Health health = Health::kUnknown;
  std::string condition;  // the configured condition that produced the key
  std::string evidence;   // compact, already-redacted JSON text; opaque to the core
  Labels labels;  // the fields the key was built from; an unhealthy one replaces the incident's
  // The source's own event count behind an unhealthy observation (an error group's count);
  // nullopt when the source states none (a metric).
  std::optional<uint64_t> upstream_count;
  // When the source says the failure began (a pushed alert's startsAt), if before `at`: an
  // unhealthy observation of a key never seen failing takes it as the key's first-seen time.
  std::optional<WallTime> first_seen_at;
  // Set only by a push condition's sweep (ObserveStalePushes) past its expire_after: an open
  // incident resolves at once (Reason::kExpired), whatever its healthy streak; otherwise the
  // observation is the unknown it carries.
  bool expire = false;
  // What `evidence` was built from, as a fingerprint its builder gives (equal fingerprints,
  // equal evidence); an incident that appends the evidence keeps it, so a later poll of the same
  // unchanged group can take the stored evidence instead of building it again. nullopt: none.
  std::optional<uint64_t> evidence_fingerprint;
};

}  // namespace quell::core
