#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "quell/core/decision.h"
#include "quell/core/evaluate.h"
#include "quell/core/incident.h"
#include "quell/core/observation.h"
#include "quell/core/policy.h"

namespace quell::app {

// Incidents held in memory, one per key: what `quell replay` decides against, and the
// reference point for the durable stores. Not thread-safe.
class MemoryIncidents {
 public:
  explicit MemoryIncidents(core::Policy policy) : policy_(policy) {}

  // Evaluates `observation` against its key's incident, creating the record on first sight.
  core::Decision Apply(const core::Observation& observation);

  // nullptr when the key has never been seen.
  const core::Incident* Find(std::string_view key) const;
  size_t size() const { return incidents_.size(); }
  void Reserve(size_t keys) { incidents_.reserve(keys); }

 private:
  // Transparent hashing lets a lookup use the parser's string_view without building a string.
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
  };

  core::Policy policy_;
  std::unordered_map<std::string, core::Incident, KeyHash, std::equal_to<>> incidents_;
};

}  // namespace quell::app
