#pragma once

#include <cstddef>
#include <span>
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

// HeldDecisions for a caller that keeps the observations it applied (an apply sends one decision
// per observation, in input order): holds only the decisions, so a poll of a million quiet
// sightings does not copy every observation, its evidence and labels, once more.
class HeldDecisionsOf : public DecisionSink {
 public:
  // `observations`: what the apply read, in its order; must outlive ForwardTo.
  explicit HeldDecisionsOf(std::span<const core::Observation> observations)
      : observations_(observations) {}
  void OnDecision(const core::Observation& /*observation*/,
                  const core::Decision& decision) override {
    held_.push_back(decision);
  }
  void Reset() override { held_.clear(); }
  void ForwardTo(DecisionSink& sink) const {
    for (size_t i = 0; i < held_.size() && i < observations_.size(); ++i) {
      sink.OnDecision(observations_[i], held_[i]);
    }
  }

 private:
  std::span<const core::Observation> observations_;
  std::vector<core::Decision> held_;
};

}  // namespace quell::app
