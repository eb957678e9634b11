#include "quell/core/delivery/grouping.h"

#include <gtest/gtest.h>

#include <vector>

namespace quell::core {
namespace grouping_test {

WallTime At(const char* text) { return *ParseRfc3339(text); }

GroupPolicy By(std::vector<std::string> names) {
  GroupPolicy policy;
  policy.group_by = std::move(names);
  policy.group_wait = std::chrono::seconds(30);
  policy.group_interval = std::chrono::minutes(5);
  return policy;
}

TEST(GroupingTest, TheKeyNamesEachGroupByEntryInItsOrder) {
  const Labels labels = {{"stage", "prod"}, {"tenant", "t1"}};
  EXPECT_EQ(GroupKeyOf(By({"condition", "tenant"}), "model-answer", labels),
            "condition=model-answer,tenant=t1");
  EXPECT_EQ(GroupKeyOf(By({"tenant", "condition"}), "model-answer", labels),
            "tenant=t1,condition=model-answer");
}

TEST(GroupingTest, AMissingLabelGivesAnEmptyValue) {
  EXPECT_EQ(GroupKeyOf(By({"condition", "tenant"}), "c", {}), "condition=c,tenant=");
}

TEST(GroupingTest, CommasAndEqualsInValuesNeverMakeTwoLabelSetsOneKey) {
  const GroupPolicy policy = By({"a", "b"});
  const std::string one = GroupKeyOf(policy, "", {{"a", "x,b=y"}, {"b", ""}});
  const std::string two = GroupKeyOf(policy, "", {{"a", "x"}, {"b", "y"}});
  const std::string three = GroupKeyOf(policy, "", {{"a", "x="}, {"b", "y"}});
  const std::string four = GroupKeyOf(policy, "", {{"a", "x\\"}, {"b", "y"}});
  EXPECT_NE(one, two);
  EXPECT_NE(three, two);
  EXPECT_NE(four, two);
  EXPECT_NE(three, four);
  EXPECT_EQ(one, "a=x\\,b\\=y,b=");
}

TEST(GroupingTest, TheLabelsComeBackFromTheKeyUnescaped) {
  const GroupPolicy policy = By({"condition", "tenant"});
  const std::string key = GroupKeyOf(policy, "c=1", {{"tenant", "a,b\\c"}});
  const auto labels = GroupKeyLabels(key);
  ASSERT_EQ(labels.size(), 2U);
  EXPECT_EQ(labels[0], (std::pair<std::string, std::string>{"condition", "c=1"}));
  EXPECT_EQ(labels[1], (std::pair<std::string, std::string>{"tenant", "a,b\\c"}));
  EXPECT_EQ(GroupKeyLabels(GroupKeyOf(policy, "c", {}))[1].second, "");
}

TEST(GroupingTest, ANewGroupWaitsGroupWaitFromItsFirstMember) {
  EXPECT_EQ(GroupDueAt(By({"condition"}), At("2026-12-02T09:00:00Z"), std::nullopt),
            At("2026-12-02T09:00:30Z"));
}

TEST(GroupingTest, AnActiveGroupWaitsForGroupInterval) {
  // The previous message went at 09:00:30; a member changing at 09:01 waits until 09:05:30.
  EXPECT_EQ(GroupDueAt(By({"condition"}), At("2026-12-02T09:01:00Z"), At("2026-12-02T09:00:30Z")),
            At("2026-12-02T09:05:30Z"));
}

TEST(GroupingTest, AGroupQuietForLongerThanGroupIntervalStartsOverWithGroupWait) {
  EXPECT_EQ(GroupDueAt(By({"condition"}), At("2026-12-02T10:00:00Z"), At("2026-12-02T09:00:30Z")),
            At("2026-12-02T10:00:30Z"));
}

TEST(GroupingTest, TheTransitionIsOpenThenRenotifyThenResolve) {
  using K = TransitionKind;
  EXPECT_EQ(GroupTransition(std::vector<K>{K::kResolve, K::kOpen, K::kRenotify}), K::kOpen);
  EXPECT_EQ(GroupTransition(std::vector<K>{K::kResolve, K::kRenotify}), K::kRenotify);
  EXPECT_EQ(GroupTransition(std::vector<K>{K::kResolve}), K::kResolve);
}

TEST(GroupingTest, GroupRowsFollowTheContract) {
  const OutboxRow row = MakeGroupRow("ops", "condition=model-answer,tenant=t1", 3,
                                     TransitionKind::kOpen, 2, At("2026-12-02T09:00:00Z"));
  EXPECT_EQ(row.key, "{group}:condition=model-answer,tenant=t1");
  EXPECT_TRUE(IsGroupKey(row.key));
  EXPECT_EQ(row.generation, 3U);
  EXPECT_EQ(row.version, 1U);
  EXPECT_EQ(row.idempotency_key,
            OutboxIdempotencyKey("{group}:condition=model-answer,tenant=t1", 3, 1, "ops"));
  EXPECT_EQ(row.status, OutboxStatus::kPending);
  EXPECT_EQ(GroupKeyOfRow(row), "condition=model-answer,tenant=t1");
}

TEST(GroupingTest, ThePayloadListsEveryMemberWithCounts) {
  OutboxRow group = MakeGroupRow("ops", "condition=model-answer,tenant=t1", 3,
                                 TransitionKind::kOpen, 2, At("2026-12-02T09:00:00Z"));
  std::vector<OutboxRow> members(3);
  members[0].transition = TransitionKind::kOpen;
  members[0].payload = R"({"key":"a"})";
  members[1].transition = TransitionKind::kOpen;
  members[1].payload = R"({"key":"b"})";
  members[2].transition = TransitionKind::kResolve;
  members[2].payload = R"({"key":"c"})";
  EXPECT_EQ(GroupPayload(group, members),
            R"({"group":{"key":"condition=model-answer,tenant=t1","channel":"ops","sequence":3,)"
            R"("labels":{"condition":"model-answer","tenant":"t1"},"open_after":2,)"
            R"("counts":{"members":3,"open":2,"renotify":0,"resolve":1},)"
            R"("members":[{"key":"a"},{"key":"b"},{"key":"c"}]}})");
}

// The counts a message states are read at send time: "standing" follows "counts".
TEST(GroupingTest, ThePayloadSaysWhereTheMembersStandAtSendTime) {
  const OutboxRow group = MakeGroupRow("ops", "condition=c", 2, TransitionKind::kResolve, 30,
                                       At("2026-12-02T09:00:00Z"));
  std::vector<OutboxRow> members(2);
  members[0].transition = TransitionKind::kResolve;
  members[0].payload = R"({"key":"a"})";
  members[1].transition = TransitionKind::kResolve;
  members[1].payload = R"({"key":"b"})";
  EXPECT_EQ(GroupPayload(group, members, GroupStanding{.open = 1, .silenced = 30}),
            R"({"group":{"key":"condition=c","channel":"ops","sequence":2,)"
            R"("labels":{"condition":"c"},"open_after":30,)"
            R"("counts":{"members":2,"open":0,"renotify":0,"resolve":2},)"
            R"("standing":{"open":1,"silenced":30},)"
            R"("members":[{"key":"a"},{"key":"b"}]}})");
}

TEST(GroupingTest, AnEpisodeRunsFromTheMessageThatLeavesMembersOpenToTheOneThatLeavesNone) {
  // A new group begins episode 1 with its first message.
  uint64_t episode = GroupEpisodeOf(/*had_state=*/false, std::nullopt, 1);
  EXPECT_EQ(episode, 1u);
  StoredEpisode kept = GroupEpisodeAfter(episode, /*open_after=*/2);
  EXPECT_EQ(kept, StoredEpisode(1));
  // Later messages keep it while members stay open ...
  EXPECT_EQ(GroupEpisodeOf(true, kept, 2), 1u);
  kept = GroupEpisodeAfter(1, 0);  // ... until one leaves none open.
  EXPECT_EQ(kept, StoredEpisode(0));
  // The next message begins a new episode, numbered by its own sequence.
  EXPECT_EQ(GroupEpisodeOf(true, kept, 3), 3u);
}

TEST(GroupingTest, AGroupMessagedBeforeEpisodesKeepsItsKeyUntilItsAlertEnds) {
  // NULL kept: the alert open since before keeps its old key (episode 0) ...
  EXPECT_EQ(GroupEpisodeOf(true, std::nullopt, 8), 0u);
  EXPECT_EQ(GroupEpisodeAfter(0, 1), std::nullopt);
  // ... until a message leaves nothing open; the next one begins episodes.
  EXPECT_EQ(GroupEpisodeAfter(0, 0), StoredEpisode(0));
  EXPECT_EQ(GroupEpisodeOf(true, StoredEpisode(0), 9), 9u);
}

TEST(GroupingTest, TheStoredPayloadNamesTheEpisode) {
  const OutboxRow group =
      MakeGroupRow("ops", "tenant=t1", 4, TransitionKind::kOpen, 1, At("2026-12-02T09:00:00Z"), 3);
  EXPECT_NE(group.payload.find(R"("open_after":1,"episode":3}})"), std::string::npos)
      << group.payload;
}

}  // namespace grouping_test
}  // namespace quell::core
