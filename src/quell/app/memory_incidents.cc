#include "quell/app/memory_incidents.h"

#include <functional>
#include <utility>

#include "quell/core/engine/evaluate.h"

namespace quell::app {
namespace {

uint64_t HashKey(std::string_view key) { return std::hash<std::string_view>{}(key); }

}  // namespace

MemoryIncidents::MemoryIncidents(core::Policy policy) : policy_(policy), slots_(1024) {}

size_t MemoryIncidents::Probe(std::string_view key, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.position == kEmpty) return i;
    if (slot.hash == hash && incidents_[slot.position].key == key) return i;
  }
}

void MemoryIncidents::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.position == kEmpty) continue;
    size_t i = slot.hash & mask;
    while (slots_[i].position != kEmpty) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

void MemoryIncidents::Reserve(size_t keys) {
  incidents_.reserve(keys);
  while (slots_.size() < keys * 2) Grow();
}

core::Decision MemoryIncidents::Apply(const core::Observation& observation) {
  const uint64_t hash = HashKey(observation.key);
  const size_t at = Probe(observation.key, hash);
  if (slots_[at].position != kEmpty) {
    return core::Evaluate(incidents_[slots_[at].position], observation, policy_);
  }
  // A healthy or unknown first sighting opens nothing; keep no record, so a poll over a
  // million healthy keys costs no memory.
  core::Incident fresh;
  const core::Decision decision = core::Evaluate(fresh, observation, policy_);
  if (!decision.changed) return decision;
  slots_[at] = Slot{hash, static_cast<uint32_t>(incidents_.size())};
  incidents_.push_back(std::move(fresh));
  if (incidents_.size() * 2 > slots_.size()) Grow();
  return decision;
}

const core::Incident* MemoryIncidents::Find(std::string_view key) const {
  const Slot& slot = slots_[Probe(key, HashKey(key))];
  return slot.position == kEmpty ? nullptr : &incidents_[slot.position];
}

}  // namespace quell::app
