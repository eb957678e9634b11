// PrometheusSource against a real Prometheus: the binary starts one (scraping an exporter in
// this process every second) for the whole suite, and one more for the test that stops it.
// Each test uses metric names of its own, so they do not depend on each other's gauges.
#include "quell/adapters/prometheus/prometheus_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "httplib_test_client.h"
#include "prometheus_server.h"

namespace quell::prometheus {
namespace {

using core::ErrorCode;
using core::Labels;
using testing::PrometheusServer;

// The labels Prometheus adds to everything it scraped from the exporter.
Labels Scraped(const PrometheusServer& server, Labels own) {
  own.emplace_back("instance", "127.0.0.1:" + std::to_string(server.exporter_port()));
  own.emplace_back("job", PrometheusServer::kJob);
  std::sort(own.begin(), own.end());
  return own;
}

::testing::AssertionResult Ok(const core::Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status.error().message;
}

void SortByLabels(std::vector<core::MetricSeries>& series) {
  std::sort(series.begin(), series.end(),
            [](const auto& a, const auto& b) { return a.labels < b.labels; });
}

class PrometheusSourceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!PrometheusServer::Unavailable().empty()) return;
    core::Result<std::unique_ptr<PrometheusServer>> server = PrometheusServer::Start();
    if (server) {
      server_ = std::move(*server);
    } else {
      start_error_ = server.error().message;
    }
  }
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    QUELL_REQUIRE_PROMETHEUS();
    ASSERT_NE(server_, nullptr) << start_error_;
    source_ = std::make_unique<PrometheusSource>(http_, Options(*server_));
  }

  static PrometheusOptions Options(const PrometheusServer& server) {
    PrometheusOptions options;
    options.base_url = server.base_url();
    // Prometheus ignores it; a proxy in front of one would check it.
    options.headers = {{"Authorization", "Bearer test-token"}};
    options.connect_timeout = std::chrono::seconds(1);
    options.total_timeout = std::chrono::seconds(5);
    return options;
  }

  static inline std::unique_ptr<PrometheusServer> server_;
  static inline std::string start_error_;
  testing::HttplibTestClient http_;
  std::unique_ptr<PrometheusSource> source_;
};

TEST_F(PrometheusSourceTest, ReadsOneSeriesPerTenantWithItsLabels) {
  server_->SetGauge("model_answer_latency_p99_seconds", {{"tenant", "acme"}}, 2.5);
  server_->SetGauge("model_answer_latency_p99_seconds", {{"tenant", "globex"}}, 0.75);
  ASSERT_TRUE(Ok(server_->WaitForValue("model_answer_latency_p99_seconds{tenant=\"acme\"}", 2.5)));
  ASSERT_TRUE(
      Ok(server_->WaitForValue("model_answer_latency_p99_seconds{tenant=\"globex\"}", 0.75)));

  const auto before = std::chrono::system_clock::now();
  core::Result<core::MetricAnswer> answer =
      source_->Query({"model_answer_latency_p99_seconds", {}});
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  ASSERT_EQ(answer->series.size(), 2u);
  SortByLabels(answer->series);
  EXPECT_EQ(answer->series[0].name, "model_answer_latency_p99_seconds");
  EXPECT_EQ(answer->series[0].labels, Scraped(*server_, {{"tenant", "acme"}}));
  ASSERT_EQ(answer->series[0].points.size(), 1u);
  EXPECT_EQ(answer->series[0].points[0].value, 2.5);
  EXPECT_EQ(answer->series[1].labels, Scraped(*server_, {{"tenant", "globex"}}));
  EXPECT_EQ(answer->series[1].points[0].value, 0.75);
  // Prometheus evaluated at its own now, which it reports as every sample's time.
  ASSERT_TRUE(answer->window_end.has_value());
  EXPECT_EQ(answer->series[0].points[0].at, *answer->window_end);
  EXPECT_LT(std::chrono::abs(*answer->window_end - before), std::chrono::seconds(5));
}

TEST_F(PrometheusSourceTest, AggregatesWithMaxByTenant) {
  server_->SetGauge("model_latency_seconds", {{"tenant", "acme"}, {"model", "small"}}, 1);
  server_->SetGauge("model_latency_seconds", {{"tenant", "acme"}, {"model", "large"}}, 3);
  server_->SetGauge("model_latency_seconds", {{"tenant", "globex"}, {"model", "small"}}, 2);
  ASSERT_TRUE(Ok(server_->WaitForValue("count(model_latency_seconds)", 3)));

  core::Result<core::MetricAnswer> answer =
      source_->Query({"max by (tenant) (model_latency_seconds)", {}});
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  ASSERT_EQ(answer->series.size(), 2u);
  SortByLabels(answer->series);
  EXPECT_EQ(answer->series[0].name, "");  // aggregation drops the metric name
  EXPECT_EQ(answer->series[0].labels, (Labels{{"tenant", "acme"}}));
  EXPECT_EQ(answer->series[0].points.at(0).value, 3);
  EXPECT_EQ(answer->series[1].labels, (Labels{{"tenant", "globex"}}));
  EXPECT_EQ(answer->series[1].points.at(0).value, 2);
}

TEST_F(PrometheusSourceTest, ReadsInfinityAndNan) {
  server_->SetGauge("quell_probe_special", {{"kind", "inf"}}, INFINITY);
  server_->SetGauge("quell_probe_special", {{"kind", "nan"}}, NAN);
  ASSERT_TRUE(Ok(server_->WaitForValue("quell_probe_special{kind=\"nan\"}", NAN)));
  ASSERT_TRUE(Ok(server_->WaitForValue("quell_probe_special{kind=\"inf\"}", INFINITY)));

  core::Result<core::MetricAnswer> answer = source_->Query({"quell_probe_special", {}});
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  ASSERT_EQ(answer->series.size(), 2u);
  SortByLabels(answer->series);
  EXPECT_EQ(answer->series[0].points.at(0).value, INFINITY);
  EXPECT_TRUE(std::isnan(answer->series[1].points.at(0).value));
}

TEST_F(PrometheusSourceTest, ARangeSelectorGivesSeveralPoints) {
  server_->SetGauge("quell_probe_range", {}, 1);
  ASSERT_TRUE(Ok(server_->WaitForValue("quell_probe_range", 1)));
  server_->SetGauge("quell_probe_range", {}, 2);
  ASSERT_TRUE(Ok(server_->WaitForValue("quell_probe_range", 2)));

  core::Result<core::MetricAnswer> answer = source_->Query({"quell_probe_range[1m]", {}});
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  ASSERT_EQ(answer->series.size(), 1u);
  const std::vector<core::MetricPoint>& points = answer->series[0].points;
  ASSERT_GE(points.size(), 2u);
  EXPECT_EQ(points.back().value, 2);
  EXPECT_TRUE(std::is_sorted(points.begin(), points.end(),
                             [](const auto& a, const auto& b) { return a.at < b.at; }));
  EXPECT_FALSE(answer->window_end.has_value());
}

TEST_F(PrometheusSourceTest, ParamsReachPrometheusAndSetTheEvaluationTime) {
  core::Result<core::MetricAnswer> answer = source_->Query({"time()", {{"time", "1796202000.25"}}});
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  ASSERT_EQ(answer->series.size(), 1u);  // a scalar
  EXPECT_TRUE(answer->series[0].labels.empty());
  EXPECT_EQ(answer->series[0].points.at(0).value, 1796202000.25);
  const core::WallTime at =
      core::WallTime{std::chrono::seconds(1796202000)} + std::chrono::milliseconds(250);
  EXPECT_EQ(answer->window_end, at);
}

TEST_F(PrometheusSourceTest, BadPromQlIsRejectedWithPrometheusMessage) {
  core::Result<core::MetricAnswer> answer = source_->Query({"max by (tenant) (", {}});
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().code, ErrorCode::kRejected);
  EXPECT_FALSE(answer.error().IsRetryable());
  EXPECT_NE(answer.error().message.find("prometheus: bad_data: "), std::string::npos)
      << answer.error().message;
  EXPECT_NE(answer.error().message.find("parse error"), std::string::npos)
      << answer.error().message;
}

TEST_F(PrometheusSourceTest, AnEmptyResultIsZeroSeries) {
  core::Result<core::MetricAnswer> answer =
      source_->Query({"model_answer_latency_p99_seconds{tenant=\"nobody\"}", {}});
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_TRUE(answer->series.empty());
  EXPECT_FALSE(answer->window_end.has_value());
}

TEST_F(PrometheusSourceTest, SendsTheExtraHeaders) {
  ASSERT_TRUE(source_->Query({"vector(1)", {}}).ok());
  const std::optional<core::HttpRequest> sent = http_.LastRequest();
  ASSERT_TRUE(sent.has_value());
  EXPECT_EQ(core::FindHeader(sent->headers, "Authorization"), "Bearer test-token");
}

// Its own Prometheus, so stopping it leaves the suite's alone; it needs no scraped data.
TEST_F(PrometheusSourceTest, AStoppedPrometheusIsARetryableTransportError) {
  core::Result<std::unique_ptr<PrometheusServer>> own =
      PrometheusServer::Start(PrometheusServer::Await::kReady);
  ASSERT_TRUE(own.ok()) << own.error().message;
  PrometheusSource source(http_, Options(**own));
  ASSERT_TRUE(source.Query({"vector(1)", {}}).ok());

  (*own)->Stop();
  core::Result<core::MetricAnswer> answer = source.Query({"vector(1)", {}});
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().code, ErrorCode::kUnavailable) << answer.error().message;
  EXPECT_TRUE(answer.error().IsRetryable());
  EXPECT_EQ(
      answer.error().message.rfind("prometheus: GET " + (*own)->base_url() + "/api/v1/query", 0),
      0u)
      << answer.error().message;
  EXPECT_EQ(answer.error().message.find("test-token"), std::string::npos);
}

}  // namespace
}  // namespace quell::prometheus
