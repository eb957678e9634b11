#include "quell/core/delivery/group_plan.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace quell::core {
namespace group_plan_test {

using std::chrono::minutes;
using std::chrono::seconds;
using K = TransitionKind;

WallTime At(const char* text) { return *ParseRfc3339(text); }

const GroupPolicy kPolicy{
    .group_by = {"condition"}, .group_wait = seconds(30), .group_interval = minutes(5)};

GroupMemberFact Member(const char* key, uint64_t generation, uint64_t version, K transition) {
  return {.key = key, .generation = generation, .version = version, .transition = transition};
}

// Two members opened at 09:00, no message yet, read at `at`.
GroupFacts FirstFacts(WallTime at) {
  return GroupFacts{.channel = "ops",
                    .group_key = "condition=answers",
                    .at = at,
                    .ready = {Member("a", 1, 1, K::kOpen), Member("b", 1, 1, K::kOpen)},
                    .first_waiting = At("2026-12-02T09:00:00Z"),
                    .taken = {},
                    .state = std::nullopt};
}

TEST(GroupPlanTest, NothingIsDueBeforeGroupWaitNorWithoutReadyMembers) {
  EXPECT_FALSE(PlanGroupMessage(FirstFacts(At("2026-12-02T09:00:29Z")), kPolicy));
  GroupFacts empty = FirstFacts(At("2026-12-02T10:00:00Z"));
  empty.ready.clear();
  EXPECT_FALSE(PlanGroupMessage(empty, kPolicy));
}

TEST(GroupPlanTest, TheFirstMessageIsSequenceOneDueAtGroupWaitNotWhenTheRoundRan) {
  const WallTime late = At("2026-12-02T09:00:45Z");
  const auto message = PlanGroupMessage(FirstFacts(late), kPolicy);
  ASSERT_TRUE(message.has_value());
  const OutboxRow& row = message->row;
  EXPECT_EQ(row.kind, OutboxRowKind::kGroup);
  EXPECT_EQ(row.key, "{group}:condition=answers");
  EXPECT_EQ(row.generation, 1u);
  EXPECT_EQ(row.transition, K::kOpen);
  EXPECT_EQ(row.status, OutboxStatus::kPending);
  EXPECT_EQ(row.next_attempt_at, At("2026-12-02T09:00:30Z"));
  EXPECT_EQ(row.created_at, late);
  EXPECT_EQ(row.idempotency_key, OutboxIdempotencyKey("{group}:condition=answers", 1, 1, "ops"));
  EXPECT_NE(row.payload.find("\"open_after\":2"), std::string::npos) << row.payload;
  EXPECT_NE(row.payload.find("\"episode\":1"), std::string::npos) << row.payload;
  EXPECT_EQ(message->state_after.last_sequence, 1u);
  EXPECT_EQ(message->state_after.last_message_at, At("2026-12-02T09:00:30Z"));
  EXPECT_EQ(message->state_after.episode, std::optional<uint64_t>(1));
}

TEST(GroupPlanTest, TheNextMessageWaitsGroupIntervalAndCountsWhatStaysOpen) {
  GroupFacts facts{
      .channel = "ops",
      .group_key = "condition=answers",
      .at = At("2026-12-02T09:05:29Z"),
      .ready = {Member("b", 1, 2, K::kResolve), Member("c", 1, 1, K::kRenotify)},
      .first_waiting = At("2026-12-02T09:01:00Z"),
      .taken = {Member("a", 1, 1, K::kOpen), Member("b", 1, 1, K::kOpen)},
      .state = GroupState{
          .last_sequence = 1, .last_message_at = At("2026-12-02T09:00:30Z"), .episode = 1}};
  EXPECT_FALSE(PlanGroupMessage(facts, kPolicy)) << "the previous message + group_interval";
  facts.at = At("2026-12-02T09:05:30Z");
  const auto message = PlanGroupMessage(facts, kPolicy);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(message->row.generation, 2u);
  EXPECT_EQ(message->row.transition, K::kRenotify);
  EXPECT_EQ(message->row.next_attempt_at, At("2026-12-02T09:05:30Z"));
  // a (open, taken before) and c (renotify) stay open; b's latest is its resolve.
  EXPECT_NE(message->row.payload.find("\"open_after\":2"), std::string::npos);
  EXPECT_EQ(message->state_after.episode, std::optional<uint64_t>(1));
}

TEST(GroupPlanTest, AMessageThatLeavesNothingOpenEndsTheEpisode) {
  const GroupFacts facts{
      .channel = "ops",
      .group_key = "condition=answers",
      .at = At("2026-12-02T10:00:00Z"),
      .ready = {Member("a", 1, 2, K::kResolve)},
      .first_waiting = At("2026-12-02T09:30:00Z"),
      .taken = {Member("a", 1, 1, K::kOpen)},
      .state = GroupState{
          .last_sequence = 4, .last_message_at = At("2026-12-02T09:00:30Z"), .episode = 3}};
  const auto message = PlanGroupMessage(facts, kPolicy);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(message->row.generation, 5u);
  EXPECT_EQ(message->row.transition, K::kResolve);
  EXPECT_NE(message->row.payload.find("\"open_after\":0"), std::string::npos);
  EXPECT_NE(message->row.payload.find("\"episode\":3"), std::string::npos);
  EXPECT_EQ(message->state_after.episode, std::optional<uint64_t>(0));
}

TEST(GroupPlanTest, AGroupFromBeforeEpisodesKeepsNoEpisode) {
  GroupFacts facts = FirstFacts(At("2026-12-02T10:00:00Z"));
  facts.state = GroupState{
      .last_sequence = 2, .last_message_at = At("2026-12-02T09:00:30Z"), .episode = std::nullopt};
  const auto message = PlanGroupMessage(facts, kPolicy);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(message->row.payload.find("\"episode\""), std::string::npos);
  EXPECT_FALSE(message->state_after.episode.has_value());
}

TEST(GroupPlanTest, OpenAfterTakesEachKeysLatestMemberWhereverItIs) {
  // A ready member older than one taken before (a late escalation tier) does not reopen it.
  EXPECT_EQ(OpenAfter(std::vector{Member("a", 2, 1, K::kResolve)},
                      std::vector{Member("a", 1, 3, K::kOpen)}),
            0u);
  EXPECT_EQ(OpenAfter(std::vector{Member("a", 1, 1, K::kResolve)},
                      std::vector{Member("a", 2, 1, K::kOpen)}),
            1u);
  EXPECT_EQ(OpenAfter({}, std::vector{Member("a", 1, 1, K::kOpen), Member("a", 1, 2, K::kResolve),
                                      Member("b", 1, 1, K::kRenotify)}),
            1u);
}

TEST(GroupPlanTest, ThePlannerForAChannelUsesItsTiming) {
  const GroupPlanner now_or_never = GroupPlannerFor(seconds(0), seconds(0));
  EXPECT_TRUE(now_or_never(FirstFacts(At("2026-12-02T09:00:00Z"))).has_value());
  const GroupPlanner patient = GroupPlannerFor(minutes(10), minutes(10));
  EXPECT_FALSE(patient(FirstFacts(At("2026-12-02T09:09:59Z"))).has_value());
}

}  // namespace group_plan_test
}  // namespace quell::core
