#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/conditions/escalation.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/engine/incident.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/text/time.h"

namespace quell::core {

// The notification policy's one planning stage: which outbox rows a transition writes, with
// their status, tier, group and due time. A poll, a push, a resolve by hand and a replay all
// plan here; the stores only persist what it returns.

// The channels that group, by name.
using GroupingPolicies = std::map<std::string, GroupPolicy, std::less<>>;

// What an inhibited row's last_error starts with, before the holder's key: how the release
// finds whom to name.
inline constexpr std::string_view kHeldBehindPrefix = "held behind ";

// What holds one transition back now, read by the caller from the store and the clock. They
// apply in this order: a row in shadow is only recorded; a silenced one is recorded as
// silenced; one held behind an inhibitor waits for it; one in an open maintenance window is
// muted. Only a row none of them holds is sent, or joins its group.
struct DeliveryHolds {
  bool shadow = false;
  bool silenced = false;
  const Incident* inhibitor = nullptr;  // the open incident holding this one back
  bool muted = false;
};

// One transition of `incident` (as written), at the decision's generation and version.
struct PlannedTransition {
  const Incident& incident;
  TransitionKind transition = TransitionKind::kOpen;
  uint64_t generation = 0;
  uint64_t version = 0;
  std::string_view payload;  // the encoded snapshot every row carries
};

// The rows of `transition` to `targets`. An open goes to every tier, each due its `after`
// past `now`; a renotify or resolve only to the tiers already paged (core::TierDue). Pure.
std::vector<OutboxRow> PlanDelivery(const PlannedTransition& transition,
                                    std::span<const TierTarget> targets, const DeliveryHolds& holds,
                                    const GroupingPolicies& grouping, WallTime now);

// A pending row on a channel that groups waits in its group instead (status grouped, the
// incident's group key); any other row is left as it is.
void JoinGroupIfPending(OutboxRow& row, const Incident& incident, const GroupingPolicies& grouping);

// Marks `row` held behind `holder` (status inhibited, naming it in last_error).
void HoldBehind(OutboxRow& row, std::string_view holder);

}  // namespace quell::core
