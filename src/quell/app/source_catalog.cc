#include "quell/app/source_catalog.h"

namespace quell::app {

void LastCycles::OnCycleStart(const std::string& /*run_id*/, core::WallTime /*at*/) {}

void LastCycles::OnCycleEnd(const std::string& /*run_id*/, const CycleReport& report,
                            core::WallTime /*at*/) {
  const std::lock_guard<std::mutex> lock(mu_);
  // A sharded condition has one outcome per shard polled here; the last one read stands for it.
  for (const ConditionOutcome& outcome : report.conditions) {
    by_condition_[outcome.condition] = LastConditionCycle{report.at, outcome};
  }
}

void LastCycles::OnDispatch(const DispatchReport& /*report*/, core::WallTime /*at*/) {}

std::map<std::string, LastConditionCycle> LastCycles::Snapshot() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return by_condition_;
}

}  // namespace quell::app
