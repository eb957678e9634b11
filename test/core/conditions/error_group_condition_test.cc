#include "quell/core/conditions/error_group_condition.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace quell::core {
namespace {

WallTime At(const char* text) { return ParseRfc3339(text).value(); }

ErrorGroupCondition Condition(UnhealthyRule rule = UnhealthyRule::kUnresolved) {
  ErrorGroupCondition c;
  c.common.name = "agent-errors";
  c.key = KeyTemplate::Parse("{tags.tenant}:{tags.agent_stage}:{error_group_id}").value();
  c.rule = rule;
  return c;
}

ErrorGroup Group(std::string id, bool resolved, const char* last_seen = "2026-12-02T09:00:00Z") {
  ErrorGroup g;
  g.id = std::move(id);
  g.title = "Model call failed";
  g.level = "error";
  g.resolved = resolved;
  g.last_seen = At(last_seen);
  g.tags = {{"agent_stage", "model-answer"}, {"tenant", "acme"}};
  return g;
}

Incident Open(std::string key, std::string condition = "agent-errors") {
  Incident i;
  i.key = std::move(key);
  i.condition = std::move(condition);
  i.status = IncidentStatus::kOpen;
  return i;
}

GroupListing Complete(std::vector<ErrorGroup> groups) {
  return GroupListing{.groups = std::move(groups), .complete = true, .pages = 1, .error = {}};
}

const GroupEvidence kTitle = [](const ErrorGroup& g) { return "{\"title\":\"" + g.title + "\"}"; };

TEST(ObserveGroupsTest, UnresolvedGroupIsUnhealthyUnderItsTemplateKey) {
  const auto at = At("2026-12-02T09:01:00Z");
  const auto result =
      ObserveGroups(Condition(), Complete({Group("grp_1", false)}), {}, std::nullopt, at, kTitle);
  ASSERT_EQ(result.observations.size(), 1U);
  const Observation& o = result.observations[0];
  EXPECT_EQ(o.key, "acme:model-answer:grp_1");
  EXPECT_EQ(o.health, Health::kUnhealthy);
  EXPECT_EQ(o.at, at);
  EXPECT_EQ(o.condition, "agent-errors");
  EXPECT_EQ(o.evidence, "{\"title\":\"Model call failed\"}");
}

TEST(ObserveGroupsTest, ListsEveryUnhealthyGroupUnderItsKeySortedAndUnique) {
  ErrorGroupCondition condition = Condition();
  condition.key = KeyTemplate::Parse("{tags.tenant}:{tags.agent_stage}").value();
  const auto result = ObserveGroups(condition,
                                    Complete({Group("grp_2", false), Group("grp_1", false),
                                              Group("grp_3", true), Group("grp_2", false)}),
                                    {}, std::nullopt, At("2026-12-02T09:01:00Z"), kTitle);
  ASSERT_EQ(result.observations.size(), 1U) << "the three groups merge under one key";
  EXPECT_EQ(result.key_groups,
            (std::vector<KeyGroup>{{"acme:model-answer", "grp_1"}, {"acme:model-answer", "grp_2"}}))
      << "the resolved grp_3 is not a failure; the twice-listed grp_2 counts once";
}

TEST(ObserveGroupsTest, HealthyGroupsWithoutAnOpenIncidentAreNotEmitted) {
  const auto result = ObserveGroups(Condition(), Complete({Group("grp_1", true)}), {}, std::nullopt,
                                    At("2026-12-02T09:01:00Z"), kTitle);
  EXPECT_TRUE(result.observations.empty());
  EXPECT_EQ(result.groups_matched, 1U);
}

TEST(ObserveGroupsTest, ResolvedGroupOfAnOpenIncidentIsHealthy) {
  const std::vector<Incident> open = {Open("acme:model-answer:grp_1")};
  const auto result = ObserveGroups(Condition(), Complete({Group("grp_1", true)}), open,
                                    std::nullopt, At("2026-12-02T09:01:00Z"), kTitle);
  ASSERT_EQ(result.observations.size(), 1U);
  EXPECT_EQ(result.observations[0].health, Health::kHealthy);
  EXPECT_TRUE(result.observations[0].evidence.empty());
}

TEST(ObserveGroupsTest, OpenIncidentAbsentFromACompleteListingIsHealthy) {
  const std::vector<Incident> open = {Open("acme:model-answer:gone"),
                                      Open("other-condition-key", "other")};
  const auto result = ObserveGroups(Condition(), Complete({}), open, std::nullopt,
                                    At("2026-12-02T09:01:00Z"), kTitle);
  ASSERT_EQ(result.observations.size(), 1U);
  EXPECT_EQ(result.observations[0].key, "acme:model-answer:gone");
  EXPECT_EQ(result.observations[0].health, Health::kHealthy);
}

TEST(ObserveGroupsTest, PartialListingNeverProducesHealthy) {
  GroupListing partial{.groups = {Group("grp_new", false), Group("grp_1", true)},
                       .complete = false,
                       .pages = 2,
                       .error = MakeError(ErrorCode::kUnavailable, "page 3: HTTP 503")};
  const std::vector<Incident> open = {Open("acme:model-answer:grp_1"),
                                      Open("acme:model-answer:grp_2")};
  const auto result = ObserveGroups(Condition(), partial, open, At("2026-12-02T08:00:00Z"),
                                    At("2026-12-02T09:01:00Z"), kTitle);
  ASSERT_EQ(result.observations.size(), 3U);
  EXPECT_EQ(result.observations[0].key, "acme:model-answer:grp_1");
  EXPECT_EQ(result.observations[0].health, Health::kUnknown);
  EXPECT_EQ(result.observations[1].key, "acme:model-answer:grp_2");
  EXPECT_EQ(result.observations[1].health, Health::kUnknown);
  EXPECT_EQ(result.observations[2].key, "acme:model-answer:grp_new");
  EXPECT_EQ(result.observations[2].health, Health::kUnhealthy);
  EXPECT_EQ(result.groups,
            (std::vector<size_t>{GroupObservations::kNoGroup, GroupObservations::kNoGroup, 0}));
  // The watermark stays where the last complete listing left it.
  EXPECT_EQ(result.watermark, At("2026-12-02T08:00:00Z"));
}

TEST(ObserveGroupsTest, NewEventsRuleComparesLastSeenWithTheWatermark) {
  const auto mark = At("2026-12-02T09:00:00Z");
  const std::vector<Incident> open = {Open("acme:model-answer:quiet")};
  const auto result = ObserveGroups(Condition(UnhealthyRule::kNewEvents),
                                    Complete({Group("quiet", false, "2026-12-02T09:00:00Z"),
                                              Group("busy", false, "2026-12-02T09:00:30Z")}),
                                    open, mark, At("2026-12-02T09:01:00Z"), kTitle);
  ASSERT_EQ(result.observations.size(), 2U);
  EXPECT_EQ(result.observations[0].key, "acme:model-answer:busy");
  EXPECT_EQ(result.observations[0].health, Health::kUnhealthy);
  EXPECT_EQ(result.observations[1].key, "acme:model-answer:quiet");
  EXPECT_EQ(result.observations[1].health, Health::kHealthy);
  EXPECT_EQ(result.watermark, At("2026-12-02T09:00:30Z"));
}

TEST(ObserveGroupsTest, NewEventsRuleWithoutABaselineTreatsUnresolvedAsUnhealthy) {
  const auto result =
      ObserveGroups(Condition(UnhealthyRule::kNewEvents), Complete({Group("grp_1", false)}), {},
                    std::nullopt, At("2026-12-02T09:01:00Z"), kTitle);
  ASSERT_EQ(result.observations.size(), 1U);
  EXPECT_EQ(result.observations[0].health, Health::kUnhealthy);
}

TEST(ObserveGroupsTest, GroupsSharingAKeyMergeAndUnhealthyWins) {
  ErrorGroupCondition c = Condition();
  c.key = KeyTemplate::Parse("{tags.tenant}:{tags.agent_stage}").value();
  const std::vector<Incident> open = {Open("acme:model-answer")};
  const auto result = ObserveGroups(c, Complete({Group("a", true), Group("b", false)}), open,
                                    std::nullopt, At("2026-12-02T09:01:00Z"), kTitle);
  ASSERT_EQ(result.observations.size(), 1U);
  EXPECT_EQ(result.observations[0].health, Health::kUnhealthy);
  EXPECT_FALSE(result.observations[0].evidence.empty());
}

TEST(ObserveGroupsTest, FilterSelectsLevelsAndTags) {
  ErrorGroupCondition c = Condition();
  c.filter.levels = {"fatal"};
  ErrorGroup fatal = Group("f", false);
  fatal.level = "fatal";
  auto result = ObserveGroups(c, Complete({Group("e", false), fatal}), {}, std::nullopt,
                              At("2026-12-02T09:01:00Z"), kTitle);
  ASSERT_EQ(result.observations.size(), 1U);
  EXPECT_EQ(result.observations[0].key, "acme:model-answer:f");

  c.filter.levels.clear();
  c.filter.tags = {{"tenant", "globex"}};
  result = ObserveGroups(c, Complete({Group("e", false)}), {}, std::nullopt,
                         At("2026-12-02T09:01:00Z"), kTitle);
  EXPECT_TRUE(result.observations.empty());
}

TEST(ObserveGroupsTest, FlapDampingKeepsHealthyObservationsOfKeysWithoutAnIncident) {
  ErrorGroupCondition c = Condition();
  c.common.policy.flap = FlapDamping{};
  const auto result = ObserveGroups(c, Complete({Group("grp_1", true)}), {}, std::nullopt,
                                    At("2026-12-02T09:01:00Z"), kTitle);
  ASSERT_EQ(result.observations.size(), 1U);
  EXPECT_EQ(result.observations[0].health, Health::kHealthy);
}

TEST(GroupFieldTest, NamesCanonicalFieldsTagsAndExtras) {
  ErrorGroup g = Group("grp_1", false);
  g.fields = {{"environment", "production"}};
  EXPECT_EQ(GroupField(g, "id"), "grp_1");
  EXPECT_EQ(GroupField(g, "status"), "unresolved");
  EXPECT_EQ(GroupField(g, "tags.tenant"), "acme");
  EXPECT_EQ(GroupField(g, "environment"), "production");
  EXPECT_FALSE(GroupField(g, "tags.missing").has_value());
}

}  // namespace
}  // namespace quell::core

namespace quell::core {
namespace {

TEST(ObserveGroupsTest, AnUnhealthyKeyCarriesTheLabelsItsTemplateReadAndTheGroupCount) {
  ErrorGroup group = Group("grp_1", false);
  group.count = 12;
  group.tags.emplace_back("user", "someone@example.com");
  ErrorGroupCondition condition = Condition();
  condition.key =
      KeyTemplate::Parse("{tags.tenant}:{tags.agent_stage}:{tags.user}:{level}").value();
  const auto result = ObserveGroups(condition, Complete({group}), {}, std::nullopt,
                                    At("2026-12-02T09:01:00Z"), kTitle);
  ASSERT_EQ(result.observations.size(), 1U);
  const Observation& o = result.observations[0];
  ASSERT_EQ(o.labels.size(), 4U);
  EXPECT_EQ(o.labels[0], (std::pair<std::string, std::string>{"agent_stage", "model-answer"}));
  EXPECT_EQ(o.labels[1], (std::pair<std::string, std::string>{"level", "error"}));
  EXPECT_EQ(o.labels[2], (std::pair<std::string, std::string>{"tenant", "acme"}));
  // Personal data is a label as the key shows it: its pseudonym.
  EXPECT_EQ(o.labels[3].first, "user");
  EXPECT_TRUE(o.labels[3].second.starts_with("pii-")) << o.labels[3].second;
  EXPECT_NE(o.key.find(o.labels[3].second), std::string::npos);
  EXPECT_EQ(o.upstream_count, std::optional<uint64_t>(12));
}

TEST(ObserveGroupsTest, GroupsSharingAKeyAddTheirCounts) {
  ErrorGroup a = Group("grp_1", false);
  a.count = 5;
  ErrorGroup b = Group("grp_2", false);
  b.count = 7;
  ErrorGroupCondition condition = Condition();
  condition.key = KeyTemplate::Parse("{tags.tenant}:{tags.agent_stage}").value();
  const auto result = ObserveGroups(condition, Complete({a, b}), {}, std::nullopt,
                                    At("2026-12-02T09:01:00Z"), kTitle);
  ASSERT_EQ(result.observations.size(), 1U);
  EXPECT_EQ(result.observations[0].upstream_count, std::optional<uint64_t>(12));
  EXPECT_EQ(result.observations[0].labels,
            (Labels{{"agent_stage", "model-answer"}, {"tenant", "acme"}}));
}

}  // namespace
}  // namespace quell::core
