#include "quell/app/memory_incidents.h"

namespace quell::app {

core::Decision MemoryIncidents::Apply(const core::Observation& observation) {
  auto it = incidents_.find(std::string_view(observation.key));
  if (it == incidents_.end()) {
    // A healthy or unknown first sighting opens nothing; keep no record so that a poll over a
    // million healthy keys costs no memory.
    core::Incident fresh;
    core::Decision decision = core::Evaluate(fresh, observation, policy_);
    if (decision.changed) incidents_.emplace(observation.key, std::move(fresh));
    return decision;
  }
  return core::Evaluate(it->second, observation, policy_);
}

const core::Incident* MemoryIncidents::Find(std::string_view key) const {
  auto it = incidents_.find(key);
  return it == incidents_.end() ? nullptr : &it->second;
}

}  // namespace quell::app
