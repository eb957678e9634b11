#include "quell/core/conditions/metric_condition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace quell::core {
namespace {

using std::chrono::minutes;

WallTime At(const char* text) { return ParseRfc3339(text).value(); }

MetricCondition Latency() {
  MetricCondition c;
  c.common.name = "answer-latency";
  c.key = KeyTemplate::Parse("{tenant}:model-answer:latency-p99").value();
  c.metric = "model_answer.latency_ms";
  c.group_by = std::vector<std::string>{"tenant"};
  c.aggregation = Aggregation::kMax;
  c.window = minutes(5);
  c.threshold =
      Threshold{.direction = ThresholdDirection::kAbove, .trigger = 2000, .recovery = 1500};
  return c;
}

MetricSeries Series(std::string tenant, std::vector<std::pair<const char*, double>> points,
                    std::string name = "model_answer.latency_ms") {
  MetricSeries s;
  s.name = std::move(name);
  s.labels = {{"region", "eu"}, {"tenant", std::move(tenant)}};
  for (const auto& [at, value] : points) s.points.push_back({At(at), value});
  return s;
}

Incident Open(std::string key) {
  Incident i;
  i.key = std::move(key);
  i.condition = "answer-latency";
  i.status = IncidentStatus::kOpen;
  return i;
}

const WallTime kNow = At("2026-12-02T09:10:00Z");

TEST(ClassifyTest, HysteresisBandKeepsTheCurrentState) {
  const Threshold t{.direction = ThresholdDirection::kAbove, .trigger = 2000, .recovery = 1500};
  EXPECT_EQ(Classify(t, 2500, false), Health::kUnhealthy);
  EXPECT_EQ(Classify(t, 1800, true), Health::kUnhealthy);
  EXPECT_EQ(Classify(t, 1800, false), Health::kHealthy);
  EXPECT_EQ(Classify(t, 1500, true), Health::kHealthy);
  EXPECT_EQ(Classify(t, 2000, false), Health::kHealthy);  // strictly above

  const Threshold below{.direction = ThresholdDirection::kBelow, .trigger = 10, .recovery = 20};
  EXPECT_EQ(Classify(below, 5, false), Health::kUnhealthy);
  EXPECT_EQ(Classify(below, 15, true), Health::kUnhealthy);
  EXPECT_EQ(Classify(below, 25, true), Health::kHealthy);
}

TEST(MetricConditionTest, ValidateRejectsRecoveryOnTheWrongSide) {
  MetricCondition c = Latency();
  EXPECT_TRUE(Validate(c).ok());
  c.threshold.recovery = 2500;
  EXPECT_FALSE(Validate(c).ok());
  c.threshold.direction = ThresholdDirection::kBelow;
  EXPECT_TRUE(Validate(c).ok());
  c.threshold.trigger = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(Validate(c).ok());
}

TEST(ObserveMetricTest, OneObservationPerGroupNotPerSample) {
  MetricAnswer answer;
  answer.series = {Series("acme", {{"2026-12-02T09:06:00Z", 1000}, {"2026-12-02T09:09:00Z", 2600}}),
                   Series("globex", {{"2026-12-02T09:08:00Z", 300}})};
  const auto obs = ObserveMetric(Latency(), answer, {}, kNow);
  ASSERT_EQ(obs.size(), 2U);
  EXPECT_EQ(obs[0].key, "acme:model-answer:latency-p99");
  EXPECT_EQ(obs[0].health, Health::kUnhealthy);
  EXPECT_NE(obs[0].evidence.find("\"value\":2600"), std::string::npos) << obs[0].evidence;
  EXPECT_EQ(obs[1].key, "globex:model-answer:latency-p99");
  EXPECT_EQ(obs[1].health, Health::kHealthy);
}

// A message says "model_answer.latency_ms 2600 is above the threshold 2000 (recovers below
// 1500)": everything it needs is in the evidence.
TEST(ObserveMetricTest, EvidenceNamesTheMetricTheDirectionAndTheRecoveryLine) {
  MetricAnswer answer;
  answer.series = {Series("acme", {{"2026-12-02T09:09:00Z", 2600}})};
  const auto obs = ObserveMetric(Latency(), answer, {}, kNow);
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].evidence,
            R"({"agg":"max","direction":"above","metric":"model_answer.latency_ms","points":1,)"
            R"("recovery":1500,"series":1,"threshold":2000,"value":2600})");
  MetricCondition any = Latency();
  any.metric.clear();  // every series: the series' own name
  any.threshold.recovery.reset();
  any.threshold.direction = ThresholdDirection::kBelow;
  const auto named = ObserveMetric(any, answer, {}, kNow);
  EXPECT_EQ(named[0].evidence,
            R"({"agg":"max","direction":"below","metric":"model_answer.latency_ms","points":1,)"
            R"("series":1,"threshold":2000,"value":2600})");
}

TEST(ObserveMetricTest, GroupByMergesSeriesAcrossOtherLabels) {
  MetricSeries eu = Series("acme", {{"2026-12-02T09:09:00Z", 2500}});
  MetricSeries us = Series("acme", {{"2026-12-02T09:09:00Z", 100}});
  us.labels = {{"region", "us"}, {"tenant", "acme"}};
  MetricCondition c = Latency();
  c.aggregation = Aggregation::kAvg;
  const auto obs = ObserveMetric(c, MetricAnswer{.series = {eu, us}, .window_end = {}}, {}, kNow);
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].health, Health::kHealthy);  // avg 1300
  EXPECT_NE(obs[0].evidence.find("\"series\":2"), std::string::npos);
}

TEST(ObserveMetricTest, PointsOutsideTheWindowAndOtherMetricsAreIgnored) {
  MetricAnswer answer;
  answer.series = {Series("acme", {{"2026-12-02T09:01:00Z", 9000}, {"2026-12-02T09:09:00Z", 100}}),
                   Series("acme", {{"2026-12-02T09:09:00Z", 9000}}, "other.metric")};
  const auto obs = ObserveMetric(Latency(), answer, {}, kNow);
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].health, Health::kHealthy);
}

TEST(ObserveMetricTest, WindowFollowsTheSourceClock) {
  MetricAnswer answer;
  answer.series = {Series("acme", {{"2026-12-02T07:59:00Z", 9000}})};
  answer.window_end = At("2026-12-02T08:00:00Z");  // the source runs two hours behind us
  const auto obs = ObserveMetric(Latency(), answer, {}, kNow);
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].health, Health::kUnhealthy);
}

TEST(ObserveMetricTest, NoDataIsUnknownByDefaultAndConfigurable) {
  const std::vector<Incident> open = {Open("acme:model-answer:latency-p99")};
  MetricAnswer stale;
  stale.series = {Series("acme", {{"2026-12-02T08:00:00Z", 9000}})};
  auto obs = ObserveMetric(Latency(), stale, open, kNow);
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].health, Health::kUnknown);

  MetricCondition c = Latency();
  c.no_data = NoDataRule::kHealthy;
  obs = ObserveMetric(c, MetricAnswer{}, open, kNow);  // the series vanished
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].health, Health::kHealthy);
}

TEST(ObserveMetricTest, FailedQueryObservesOpenIncidentsAsUnknown) {
  const std::vector<Incident> open = {Open("acme:model-answer:latency-p99")};
  const Result<MetricAnswer> failed = MakeError(ErrorCode::kUnavailable, "HTTP 503");
  MetricCondition c = Latency();
  c.no_data = NoDataRule::kHealthy;  // a failure is not "no data"
  const auto obs = ObserveMetric(c, failed, open, kNow);
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].health, Health::kUnknown);
}

TEST(ObserveMetricTest, OpenIncidentInTheBandStaysUnhealthy) {
  const std::vector<Incident> open = {Open("acme:model-answer:latency-p99")};
  MetricAnswer answer;
  answer.series = {Series("acme", {{"2026-12-02T09:09:00Z", 1800}})};
  auto obs = ObserveMetric(Latency(), answer, open, kNow);
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].health, Health::kUnhealthy);
  obs = ObserveMetric(Latency(), answer, {}, kNow);
  EXPECT_EQ(obs[0].health, Health::kHealthy);
}

TEST(ObserveMetricTest, NanPointsCountAsNoData) {
  MetricAnswer answer;
  answer.series = {Series("acme", {{"2026-12-02T09:09:00Z", std::nan("")}})};
  const auto obs = ObserveMetric(Latency(), answer, {}, kNow);
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].health, Health::kUnknown);
}

TEST(ObserveMetricTest, WithoutGroupByEachSeriesIsItsOwnKey) {
  MetricCondition c = Latency();
  c.group_by.reset();
  c.key = KeyTemplate::Parse("{tenant}:{region}").value();
  MetricSeries us = Series("acme", {{"2026-12-02T09:09:00Z", 100}});
  us.labels = {{"region", "us"}, {"tenant", "acme"}};
  const auto obs = ObserveMetric(
      c,
      MetricAnswer{.series = {Series("acme", {{"2026-12-02T09:09:00Z", 1}}), us}, .window_end = {}},
      {}, kNow);
  ASSERT_EQ(obs.size(), 2U);
  EXPECT_EQ(obs[0].key, "acme:eu");
  EXPECT_EQ(obs[1].key, "acme:us");
}

}  // namespace
}  // namespace quell::core

namespace quell::core {
namespace {

TEST(ObserveMetricTest, AnUnhealthyKeyCarriesTheLabelsItsTemplateRead) {
  MetricAnswer answer;
  answer.series = {Series("acme", {{"2026-12-02T09:09:00Z", 2600}}),
                   Series("globex", {{"2026-12-02T09:08:00Z", 300}})};
  const auto obs = ObserveMetric(Latency(), answer, {}, kNow);
  ASSERT_EQ(obs.size(), 2U);
  EXPECT_EQ(obs[0].labels, (Labels{{"tenant", "acme"}}));
  EXPECT_FALSE(obs[0].upstream_count.has_value());  // a metric states no event count
  EXPECT_TRUE(obs[1].labels.empty());               // healthy: nothing to replace
}

}  // namespace
}  // namespace quell::core
