// app::QueryShadowReport over a hand-written ShadowReportStore with a fault knob per read.
#include "quell/app/shadow_report_query.h"

#include <gtest/gtest.h>

#include <optional>

namespace quell::app {
namespace {

class FakeReports : public core::ShadowReportStore {
 public:
  core::Result<std::array<uint64_t, 7>> CountDecisionsSince(core::WallTime since) override {
    counts_since = since;
    if (fail_counts) return core::MakeError(core::ErrorCode::kUnavailable, "counts down");
    return counts;
  }
  core::Result<std::vector<core::KeyGroupRow>> KeyGroupsSince(core::WallTime since) override {
    rows_since = since;
    if (fail_rows) return core::MakeError(core::ErrorCode::kTimeout, "rows timed out");
    return rows;
  }

  std::array<uint64_t, 7> counts{};
  std::vector<core::KeyGroupRow> rows;
  bool fail_counts = false;
  bool fail_rows = false;
  std::optional<core::WallTime> counts_since;
  std::optional<core::WallTime> rows_since;
};

const core::WallTime kCutoff = *core::ParseRfc3339("2026-12-02T09:00:00Z");

core::KeyGroupRow Row(const char* key, const char* group) {
  return core::KeyGroupRow{key, group, kCutoff, kCutoff, 1};
}

TEST(ShadowReportQueryTest, ReadsBothSinceTheCutoffAndComputesTheReport) {
  FakeReports reports;
  reports.counts[0] = 4;
  reports.rows = {Row("k1", "g1"), Row("k1", "g2"), Row("k2", "g2")};
  auto report = QueryShadowReport(reports, kCutoff, core::ShadowReportOptions{});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(reports.counts_since, kCutoff);
  EXPECT_EQ(reports.rows_since, kCutoff);
  EXPECT_EQ(report->since, kCutoff);
  EXPECT_EQ(report->decisions[0], 4U);
  EXPECT_EQ(report->error_groups, 2U);
  EXPECT_EQ(report->keys, 2U);
  EXPECT_EQ(report->merged_keys, 1U);   // k1 holds g1 and g2
  EXPECT_EQ(report->split_groups, 1U);  // g2 failed under k1 and k2
}

TEST(ShadowReportQueryTest, EitherReadsErrorIsTheAnswer) {
  FakeReports counts_down;
  counts_down.fail_counts = true;
  auto first = QueryShadowReport(counts_down, kCutoff, core::ShadowReportOptions{});
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().code, core::ErrorCode::kUnavailable);
  EXPECT_FALSE(counts_down.rows_since) << "no second read after the first failed";

  FakeReports rows_down;
  rows_down.fail_rows = true;
  auto second = QueryShadowReport(rows_down, kCutoff, core::ShadowReportOptions{});
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, core::ErrorCode::kTimeout);
  EXPECT_EQ(second.error().message, "rows timed out");
}

}  // namespace
}  // namespace quell::app
