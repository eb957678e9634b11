#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "quell/core/engine/decision.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/text/time.h"

namespace quell::core {

// One grouped member as the group planning sees it: which transition of which incident.
struct GroupMemberFact {
  std::string key;
  uint64_t generation = 0;
  uint64_t version = 0;
  TransitionKind transition = TransitionKind::kOpen;
};

// What the store keeps per (channel, group) between messages.
struct GroupState {
  uint64_t last_sequence = 0;
  WallTime last_message_at;  // when the last message was due (its cadence counts from there)
  // The episode after the last message (core::StoredEpisode in core/delivery/grouping.h).
  std::optional<uint64_t> episode;
};

// What the store holds about one group at one moment, read inside the transaction that may
// build its next message (OutboxStore::AssembleGroup). Facts only: what they mean is
// core::PlanGroupMessage's to decide.
struct GroupFacts {
  std::string channel;
  std::string group_key;
  WallTime at;  // when they were read: members ready by then are in `ready`
  // The members ready at `at` that no message took yet (an escalation tier's open is ready at
  // its tier's time), earliest first; first_waiting is when the earliest became ready.
  std::vector<GroupMemberFact> ready;
  WallTime first_waiting;
  // For each key the group's earlier messages took, the latest member taken.
  std::vector<GroupMemberFact> taken;
  std::optional<GroupState> state;  // nullopt: the group never had a message
};

// A group message the core decided: the row to insert and what the store keeps after it.
struct GroupMessage {
  OutboxRow row;
  GroupState state_after;
};

// Called by OutboxStore::AssembleGroup inside its transaction with the group's facts; nullopt
// when no message is due.
using GroupPlanner = std::function<std::optional<GroupMessage>(const GroupFacts&)>;

}  // namespace quell::core
