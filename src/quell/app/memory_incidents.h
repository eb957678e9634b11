#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "quell/core/engine/decision.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/observation.h"
#include "quell/core/engine/policy.h"

namespace quell::app {

// Incidents held in memory, one per key: what `quell replay` decides against, and the
// reference point for the durable stores. Not thread-safe.
//
// The index is a flat open-addressing table of (hash, position) pairs rather than a
// std::unordered_map: a poll touches every key once in an order no cache predicts, and the
// node-based map costs about four cache misses per lookup where this costs two or three.
class MemoryIncidents {
 public:
  explicit MemoryIncidents(core::Policy policy);

  // Evaluates `observation` against its key's incident, creating the record on first sight.
  core::Decision Apply(const core::Observation& observation);

  // nullptr when the key has no record (never seen, or only healthy or unknown so far).
  const core::Incident* Find(std::string_view key) const;
  size_t size() const { return incidents_.size(); }
  void Reserve(size_t keys);

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t position = kEmpty;  // index into incidents_
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;

  // The slot holding `key`, or the empty slot where it would go.
  size_t Probe(std::string_view key, uint64_t hash) const;
  void Grow();

  core::Policy policy_;
  std::vector<core::Incident> incidents_;
  std::vector<Slot> slots_;  // size is a power of two, at most half full
};

}  // namespace quell::app
