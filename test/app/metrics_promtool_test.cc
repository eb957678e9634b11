// quell's own metrics, populated as a running daemon would, checked by Prometheus's promtool
// (Debian's prometheus package): parse errors and lint problems both fail it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "fake_clock.h"
#include "fake_incident_store.h"
#include "quell/app/metrics.h"
#include "quell/app/run_metrics.h"
#include "run_process.h"

namespace quell::app {
namespace {

constexpr const char* kPromtool = "/usr/bin/promtool";

std::string PopulatedMetrics() {
  MetricsRegistry registry;
  const core::WallTime at = *core::ParseRfc3339("2026-12-02T09:00:00Z");
  testing::FakeClock clock(at);
  RunMetrics metrics(registry, clock);
  CycleReport cycle;
  ConditionOutcome c;
  c.condition = "errors \"prod\"\n\\x";  // every escape a label value can need
  c.source_ok = false;
  c.summary.poll.by_decision[0] = 3;
  cycle.conditions.push_back(c);
  metrics.OnCycleEnd("r1", cycle, at);
  DispatchReport dispatch;
  dispatch.by_channel["ops"] = ChannelTally{
      .attempts = 2, .failures = 1, .delivery_latencies = {std::chrono::milliseconds(120)}};
  metrics.OnDispatch(dispatch, at);
  testing::FakeIncidentStore store;
  EXPECT_TRUE(metrics.RefreshStoreGauges(store).ok());
  return registry.Render();
}

TEST(MetricsPromtoolTest, QuellMetricsPassPromtoolCheckMetrics) {
  if (access(kPromtool, X_OK) != 0) GTEST_SKIP() << kPromtool << " is not installed";
  const std::string text = PopulatedMetrics();
  ASSERT_NE(text.find("quell_delivery_latency_seconds_bucket"), std::string::npos);
  testing::ProcessResult result = testing::RunProcess({kPromtool, "check", "metrics"}, text);
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err << "\n" << text;
}

TEST(MetricsPromtoolTest, PromtoolRejectsBrokenExposition) {
  // Proves the check above can fail: a counter without _total and an unescaped quote.
  if (access(kPromtool, X_OK) != 0) GTEST_SKIP() << kPromtool << " is not installed";
  testing::ProcessResult result = testing::RunProcess(
      {kPromtool, "check", "metrics"}, "# HELP x h\n# TYPE x counter\nx{a=\"b\"c\"} 1\n");
  EXPECT_NE(result.exit_code, 0);
}

}  // namespace
}  // namespace quell::app
