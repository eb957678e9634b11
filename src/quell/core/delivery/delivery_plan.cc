#include "quell/core/delivery/delivery_plan.h"

namespace quell::core {

std::vector<OutboxRow> PlanDelivery(const PlannedTransition& transition,
                                    std::span<const TierTarget> targets, const DeliveryHolds& holds,
                                    const GroupingPolicies& grouping, WallTime now) {
  const Incident& incident = transition.incident;
  const bool open = transition.transition == TransitionKind::kOpen;
  std::vector<OutboxRow> rows;
  rows.reserve(targets.size());
  for (const TierTarget& target : targets) {
    // Follow-ups go only to the tiers already paged.
    if (!open && !TierDue(target, incident.opened_at, now)) continue;
    OutboxRow row;
    row.tier = target.tier;
    row.idempotency_key = OutboxIdempotencyKey(incident.key, transition.generation,
                                               transition.version, target.channel);
    row.key = incident.key;
    row.generation = transition.generation;
    row.version = transition.version;
    row.transition = transition.transition;
    row.channel = target.channel;
    row.payload = std::string(transition.payload);
    if (holds.shadow) {
      row.status = OutboxStatus::kShadow;
    } else if (holds.silenced) {
      row.status = OutboxStatus::kSilenced;
    } else if (holds.inhibitor != nullptr) {
      HoldBehind(row, holds.inhibitor->key);
    } else if (holds.muted) {
      row.status = OutboxStatus::kMuted;
    }
    JoinGroupIfPending(row, incident, grouping);
    row.next_attempt_at = open ? now + target.after : now;
    row.created_at = now;
    row.updated_at = now;
    rows.push_back(std::move(row));
  }
  return rows;
}

void JoinGroupIfPending(OutboxRow& row, const Incident& incident,
                        const GroupingPolicies& grouping) {
  if (row.status != OutboxStatus::kPending) return;
  const auto policy = grouping.find(row.channel);
  if (policy == grouping.end()) return;
  row.status = OutboxStatus::kGrouped;
  row.group_key = GroupKeyOf(policy->second, incident.condition, incident.labels);
}

void HoldBehind(OutboxRow& row, std::string_view holder) {
  row.status = OutboxStatus::kInhibited;
  // Why it was not sent, for whoever lists the rows, and whom to name once it is released.
  row.last_error = std::string(kHeldBehindPrefix) + std::string(holder);
}

}  // namespace quell::core
