#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "quell/core/delivery/grouping.h"
#include "quell/core/ports/group_facts.h"

namespace quell::core {

// The group planning stage, beside PlanDelivery: from what the store holds about one group
// (GroupFacts) and the channel's grouping, whether its next message is due and, when it is,
// that message's row and what the store keeps after it. Stores read the facts and persist the
// answer; they decide nothing.
//
// A message is due when some member is ready and GroupDueAt(first_waiting, the last message's
// time) has come. Its row is MakeGroupRow's: sequence = the previous + 1, the transition
// GroupTransition's over the ready members, `open_after` the keys whose latest member (taken
// before, or taken now) is not a resolve, the episode GroupEpisodeOf's; it is due, and the
// group's cadence counts, from its due time rather than from `at`, so a late dispatcher
// round does not make the interval drift. nullopt: nothing is ready or not yet due.
std::optional<GroupMessage> PlanGroupMessage(const GroupFacts& facts, const GroupPolicy& policy);

// The keys whose latest member among `taken` and `ready` is not a resolve.
uint64_t OpenAfter(std::span<const GroupMemberFact> taken, std::span<const GroupMemberFact> ready);

// The planner OutboxStore::AssembleGroup runs for a channel whose grouping waits `group_wait`
// and `group_interval` (the timing is all the plan needs of GroupPolicy). A channel that no
// longer groups passes zero for both: its members leave in one last message.
GroupPlanner GroupPlannerFor(Duration group_wait, Duration group_interval);

}  // namespace quell::core
