#include "quell/app/held_decisions.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace quell::app {
namespace held_decisions_test {

class Collect : public DecisionSink {
 public:
  void OnDecision(const core::Observation& observation, const core::Decision& decision) override {
    seen.emplace_back(observation.key + "/" + observation.evidence, decision.version);
  }
  void Reset() override { seen.clear(); }
  std::vector<std::pair<std::string, uint64_t>> seen;
};

core::Observation Obs(std::string key, std::string evidence) {
  core::Observation o;
  o.key = std::move(key);
  o.evidence = std::move(evidence);
  return o;
}

core::Decision Version(uint64_t version) {
  core::Decision d;
  d.version = version;
  return d;
}

// Holding only the decisions, it forwards each with the caller's observation in the same place,
// evidence and all, and a retried batch (Reset) is forwarded once.
TEST(HeldDecisionsOfTest, ForwardsEachDecisionWithTheCallersObservation) {
  const std::vector<core::Observation> applied = {Obs("a", "{\"n\":1}"), Obs("b", "{\"n\":2}")};
  HeldDecisionsOf held(applied);
  const core::Observation chunk_copy = Obs("a", "");  // what the applier's buffer held
  held.OnDecision(chunk_copy, Version(7));
  held.Reset();
  held.OnDecision(chunk_copy, Version(1));
  held.OnDecision(chunk_copy, Version(2));
  Collect sink;
  held.ForwardTo(sink);
  EXPECT_EQ(sink.seen, (std::vector<std::pair<std::string, uint64_t>>{{"a/{\"n\":1}", 1},
                                                                      {"b/{\"n\":2}", 2}}));
}

}  // namespace held_decisions_test
}  // namespace quell::app
