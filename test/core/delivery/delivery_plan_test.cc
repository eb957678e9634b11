// core::PlanDelivery: the one planning stage every path to a message goes through.
#include "quell/core/delivery/delivery_plan.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace quell::core {
namespace {

using std::chrono::minutes;

const WallTime kOpened{std::chrono::hours(1000)};

Incident Open() {
  Incident incident;
  incident.key = "t1:answers";
  incident.condition = "answers";
  incident.labels = {{"tenant", "t1"}};
  incident.generation = 2;
  incident.version = 5;
  incident.opened_at = kOpened;
  return incident;
}

std::vector<TierTarget> Tiers() {
  return {{"chat", 0, Duration::zero()}, {"pager", 1, minutes(10)}};
}

std::vector<OutboxRow> Plan(TransitionKind kind, const DeliveryHolds& holds, WallTime now,
                            const GroupingPolicies& grouping = {}) {
  const Incident incident = Open();
  const std::vector<TierTarget> targets = Tiers();
  return PlanDelivery(
      PlannedTransition{
          .incident = incident, .transition = kind, .generation = 2, .version = 6, .payload = "{}"},
      targets, holds, grouping, now);
}

TEST(DeliveryPlanTest, AnOpenGoesToEveryTierEachDueItsAfter) {
  const auto rows = Plan(TransitionKind::kOpen, {}, kOpened);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].channel, "chat");
  EXPECT_EQ(rows[0].next_attempt_at, kOpened);
  EXPECT_EQ(rows[1].tier, 1u);
  EXPECT_EQ(rows[1].next_attempt_at, kOpened + minutes(10));
  EXPECT_EQ(rows[1].idempotency_key, OutboxIdempotencyKey("t1:answers", 2, 6, "pager"));
  for (const OutboxRow& row : rows) EXPECT_EQ(row.status, OutboxStatus::kPending);
}

TEST(DeliveryPlanTest, AFollowUpReachesOnlyTheTiersAlreadyPaged) {
  EXPECT_EQ(Plan(TransitionKind::kResolve, {}, kOpened + minutes(5)).size(), 1u);
  EXPECT_EQ(Plan(TransitionKind::kResolve, {}, kOpened + minutes(10)).size(), 2u);
}

TEST(DeliveryPlanTest, HoldsApplyInOrderShadowSilenceInhibitionMaintenance) {
  Incident holder = Open();
  holder.key = "t1:provider";
  const auto all = [&](DeliveryHolds holds) {
    return Plan(TransitionKind::kOpen, holds, kOpened).front();
  };
  EXPECT_EQ(all({.shadow = true, .silenced = true, .inhibitor = &holder, .muted = true}).status,
            OutboxStatus::kShadow);
  EXPECT_EQ(all({.silenced = true, .inhibitor = &holder, .muted = true}).status,
            OutboxStatus::kSilenced);
  const OutboxRow held = all({.inhibitor = &holder, .muted = true});
  EXPECT_EQ(held.status, OutboxStatus::kInhibited);
  EXPECT_EQ(held.last_error, "held behind t1:provider");
  EXPECT_EQ(all({.muted = true}).status, OutboxStatus::kMuted);
}

TEST(DeliveryPlanTest, OnlyARowNothingHoldsJoinsItsGroup) {
  const GroupingPolicies grouping{{"chat", GroupPolicy{.group_by = {"tenant"}}}};
  const auto free = Plan(TransitionKind::kOpen, {}, kOpened, grouping);
  EXPECT_EQ(free[0].status, OutboxStatus::kGrouped);
  EXPECT_EQ(free[0].group_key, GroupKeyOf(grouping.at("chat"), "answers", Open().labels));
  EXPECT_EQ(free[1].status, OutboxStatus::kPending);  // pager does not group
  const auto silenced = Plan(TransitionKind::kOpen, {.silenced = true}, kOpened, grouping);
  EXPECT_EQ(silenced[0].status, OutboxStatus::kSilenced);
  EXPECT_TRUE(silenced[0].group_key.empty());
}

}  // namespace
}  // namespace quell::core
