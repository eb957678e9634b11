#pragma once

#include <utility>
#include <vector>

#include "quell/app/poll_applier.h"

namespace quell::app {

// Holds one apply's decisions until it commits, so the caller's sink never sees a batch that
// rolled back, and a retried batch is not seen twice.
class HeldDecisions : public DecisionSink {
 public:
  void OnDecision(const core::Observation& observation, const core::Decision& decision) override {
    held_.emplace_back(observation, decision);
  }
  void Reset() override { held_.clear(); }
  // With `changed_only`, only the decisions that changed their incident's record.
  void ForwardTo(DecisionSink& sink, bool changed_only = false) const {
    for (const auto& [observation, decision] : held_) {
      if (!changed_only || decision.changed) sink.OnDecision(observation, decision);
    }
  }

 private:
  std::vector<std::pair<core::Observation, core::Decision>> held_;
};

}  // namespace quell::app
