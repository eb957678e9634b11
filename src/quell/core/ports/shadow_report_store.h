#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "quell/core/conditions/key_group.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// The reads behind `quell shadow-report`. Same errors and threading as IncidentStore's reads.
class ShadowReportStore {
 public:
  virtual ~ShadowReportStore() = default;
  // Decision log lines observed at or after `since`, counted by kind (indexed by DecisionKind);
  // update_only from the rows of the polls applied since, which count quiet sightings too.
  virtual Result<std::array<uint64_t, 7>> CountDecisionsSince(WallTime since) = 0;
  // Every (key, group) pair last seen at or after `since`, in (key, group_id) order.
  virtual Result<std::vector<KeyGroupRow>> KeyGroupsSince(WallTime since) = 0;
};

}  // namespace quell::core
