#include "quell/app/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace quell::app {
namespace {

TEST(MetricsRegistryTest, RendersCountersAndGaugesWithHelpAndType) {
  MetricsRegistry registry;
  auto polls = registry.AddCounter("quell_polls_total", "Polls.");
  auto open = registry.AddGauge("quell_open", "Open now.");
  polls.Add({{"condition", "b"}});
  polls.Add({{"condition", "a"}}, 2);
  open.Set(3.5);
  EXPECT_EQ(registry.Render(),
            "# HELP quell_open Open now.\n"
            "# TYPE quell_open gauge\n"
            "quell_open 3.5\n"
            "# HELP quell_polls_total Polls.\n"
            "# TYPE quell_polls_total counter\n"
            "quell_polls_total{condition=\"a\"} 2\n"
            "quell_polls_total{condition=\"b\"} 1\n");
}

TEST(MetricsRegistryTest, EscapesLabelValuesAndHelp) {
  MetricsRegistry registry;
  auto c = registry.AddCounter("x_total", "back\\slash\nnewline \"kept\"");
  c.Add({{"v", "a\\b\"c\nd"}});
  EXPECT_EQ(registry.Render(),
            "# HELP x_total back\\\\slash\\nnewline \"kept\"\n"
            "# TYPE x_total counter\n"
            "x_total{v=\"a\\\\b\\\"c\\nd\"} 1\n");
}

TEST(MetricsRegistryTest, LabelOrderDoesNotMakeASecondSeries) {
  MetricsRegistry registry;
  auto c = registry.AddCounter("x_total", "h");
  c.Add({{"b", "2"}, {"a", "1"}});
  c.Add({{"a", "1"}, {"b", "2"}});
  EXPECT_EQ(c.Value({{"b", "2"}, {"a", "1"}}), 2);
  EXPECT_NE(registry.Render().find("x_total{a=\"1\",b=\"2\"} 2\n"), std::string::npos);
}

TEST(MetricsRegistryTest, CountersNeverGoDown) {
  MetricsRegistry registry;
  auto c = registry.AddCounter("x_total", "h");
  c.Add({}, 5);
  c.Add({}, -3);
  c.Add({}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(c.Value(), 5);
}

TEST(MetricsRegistryTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  MetricsRegistry registry;
  auto h = registry.AddHistogram("lat_seconds", "Latency.", {1, 0.5});  // sorted on declare
  for (double v : {0.1, 0.5, 0.7, 3.0}) h.Observe(v);
  EXPECT_EQ(registry.Render(),
            "# HELP lat_seconds Latency.\n"
            "# TYPE lat_seconds histogram\n"
            "lat_seconds_bucket{le=\"0.5\"} 2\n"
            "lat_seconds_bucket{le=\"1\"} 3\n"
            "lat_seconds_bucket{le=\"+Inf\"} 4\n"
            "lat_seconds_sum 4.3\n"
            "lat_seconds_count 4\n");
  EXPECT_EQ(h.Count(), 4U);
}

TEST(MetricsRegistryTest, HistogramLabelsComeBeforeLe) {
  MetricsRegistry registry;
  auto h = registry.AddHistogram("lat_seconds", "h", {1});
  h.Observe({{"channel", "ops"}}, 2);
  const std::string text = registry.Render();
  EXPECT_NE(text.find("lat_seconds_bucket{channel=\"ops\",le=\"1\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("lat_seconds_bucket{channel=\"ops\",le=\"+Inf\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("lat_seconds_count{channel=\"ops\"} 1\n"), std::string::npos);
}

TEST(MetricsRegistryTest, FormatsSpecialValues) {
  std::string out;
  AppendMetricValue(out, std::numeric_limits<double>::infinity());
  out += ' ';
  AppendMetricValue(out, -std::numeric_limits<double>::infinity());
  out += ' ';
  AppendMetricValue(out, std::nan(""));
  out += ' ';
  AppendMetricValue(out, 1796202000.25);
  EXPECT_EQ(out, "+Inf -Inf NaN 1796202000.25");
}

TEST(MetricsRegistryTest, RedeclaringReturnsTheSameFamilyAndAnotherTypeThrows) {
  MetricsRegistry registry;
  registry.AddCounter("x_total", "h").Add();
  registry.AddCounter("x_total", "h").Add();
  EXPECT_EQ(registry.AddCounter("x_total", "h").Value(), 2);
  EXPECT_THROW(registry.AddGauge("x_total", "h"), std::logic_error);
  EXPECT_THROW(registry.AddGauge("1bad", "h"), std::logic_error);
}

TEST(MetricsRegistryTest, ConcurrentAddsAllCount) {
  MetricsRegistry registry;
  auto c = registry.AddCounter("x_total", "h");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.Add({{"t", "same"}});
        if (i % 100 == 0) (void)registry.Render();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.Value({{"t", "same"}}), 40000);
}

}  // namespace
}  // namespace quell::app
