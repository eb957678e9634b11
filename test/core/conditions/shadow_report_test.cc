#include "quell/core/conditions/shadow_report.h"

#include <gtest/gtest.h>

#include <vector>

#include "quell/core/engine/decision.h"

namespace quell::core {
namespace {

const WallTime kSince = WallTime{} + std::chrono::hours(24 * 365 * 56);

KeyGroupRow Row(std::string key, std::string group) {
  return KeyGroupRow{std::move(key), std::move(group), kSince, kSince, 1};
}

TEST(ShadowReportTest, CountsGroupsKeysAndKeepsTheDecisionCounts) {
  std::array<uint64_t, 7> decisions{};
  decisions[static_cast<size_t>(DecisionKind::kNotify)] = 4;
  decisions[static_cast<size_t>(DecisionKind::kResolve)] = 2;
  const std::vector<KeyGroupRow> rows = {Row("a", "g1"), Row("b", "g2"), Row("c", "g3")};
  const ShadowReport report = ComputeShadowReport(kSince, decisions, rows, {});
  EXPECT_EQ(report.since, kSince);
  EXPECT_EQ(report.decisions, decisions);
  EXPECT_EQ(report.error_groups, 3U);
  EXPECT_EQ(report.keys, 3U);
  EXPECT_EQ(report.merged_keys, 0U);
  EXPECT_EQ(report.split_groups, 0U);
  EXPECT_TRUE(report.merged.empty());
  EXPECT_TRUE(report.split.empty());
}

TEST(ShadowReportTest, RanksKeysMergingTheMostGroupsWithAFewSampleIds) {
  std::vector<KeyGroupRow> rows;
  for (const char* g : {"g1", "g2", "g3", "g4"}) rows.push_back(Row("tenant-a", g));
  for (const char* g : {"g5", "g6"}) rows.push_back(Row("tenant-b", g));
  for (const char* g : {"g7", "g8"}) rows.push_back(Row("tenant-c", g));
  rows.push_back(Row("tenant-d", "g9"));
  ShadowReportOptions options;
  options.top = 2;
  options.samples = 3;
  const ShadowReport report = ComputeShadowReport(kSince, {}, rows, options);
  EXPECT_EQ(report.merged_keys, 3U) << "every key with 2+ groups, past the top too";
  ASSERT_EQ(report.merged.size(), 2U);
  EXPECT_EQ(report.merged[0].key, "tenant-a");
  EXPECT_EQ(report.merged[0].groups, 4U);
  EXPECT_EQ(report.merged[0].sample_groups, (std::vector<std::string>{"g1", "g2", "g3"}));
  EXPECT_EQ(report.merged[1].key, "tenant-b") << "ties in key order";
  EXPECT_EQ(report.error_groups, 9U);
  EXPECT_EQ(report.keys, 4U);
}

TEST(ShadowReportTest, RanksGroupsSplitOverTheMostKeys) {
  std::vector<KeyGroupRow> rows = {Row("k1", "g1"), Row("k2", "g1"), Row("k3", "g1"),
                                   Row("k4", "g2"), Row("k5", "g2"), Row("k6", "g3")};
  const ShadowReport report = ComputeShadowReport(kSince, {}, rows, {});
  EXPECT_EQ(report.split_groups, 2U);
  ASSERT_EQ(report.split.size(), 2U);
  EXPECT_EQ(report.split[0].group_id, "g1");
  EXPECT_EQ(report.split[0].keys, 3U);
  EXPECT_EQ(report.split[0].sample_keys, (std::vector<std::string>{"k1", "k2", "k3"}));
  EXPECT_EQ(report.split[1].group_id, "g2");
  EXPECT_TRUE(report.merged.empty());
}

TEST(ShadowReportTest, AddsDecisionCountsByName) {
  std::array<uint64_t, 7> counts{};
  EXPECT_TRUE(AddDecisionCount(counts, "update_only", 5));
  EXPECT_TRUE(AddDecisionCount(counts, "stale", 1));
  EXPECT_FALSE(AddDecisionCount(counts, "page", 1));
  EXPECT_EQ(counts[static_cast<size_t>(DecisionKind::kUpdateOnly)], 5U);
  EXPECT_EQ(counts[static_cast<size_t>(DecisionKind::kStale)], 1U);
}

}  // namespace
}  // namespace quell::core
