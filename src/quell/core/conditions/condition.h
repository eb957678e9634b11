#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quell/core/conditions/channel_route.h"
#include "quell/core/conditions/escalation.h"
#include "quell/core/conditions/inhibition.h"
#include "quell/core/engine/policy.h"
#include "quell/core/text/time.h"

namespace quell::core {

// What every configured condition carries beside its rule: the policy the engine applies to its
// keys, how often it is polled, and where its transitions go.
struct ConditionCommon {
  std::string name;  // stored on each incident; unique in a config
  Policy policy;
  Duration interval = std::chrono::minutes{1};
  std::vector<std::string> channels = {"default"};
  // `escalation:` tiers instead of `channels` (empty: the flat `channels:` apply).
  std::vector<EscalationTier> escalation;
  // `route:`: per incident, the channels of the first matching route; `channels` when none
  // matches (or there are none).
  std::vector<ChannelRoute> routes;
  // `inhibited_by:`: while an open incident of a named condition holds one of this condition's
  // incidents, its transitions are stored inhibited and not sent (see inhibition.h).
  std::vector<Inhibition> inhibited_by;
  // Shadow: decisions and outbox rows are recorded (status shadow) but nothing is sent, the
  // check before a real rollout.
  bool shadow = false;
  // Metric conditions: after this many consecutive answers in which the condition keeps no
  // series, the poll warns (a typo'd query or label observes nothing, silently). 0: never.
  uint32_t no_series_warn_after = 3;
  // `shards:` (1..64): the keys are split by app::ShardOf over this many poll leases, so
  // several instances share one huge listing; 1 polls the condition whole.
  uint32_t shards = 1;
};

}  // namespace quell::core
