// What PrometheusSource sends and how it passes answers on, against a hand-written HttpClient.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "quell/adapters/prometheus/prometheus_source.h"

namespace quell::prometheus {
namespace {

using core::ErrorCode;

class FakeHttpClient final : public core::HttpClient {
 public:
  core::Result<core::HttpResponse> Send(const core::HttpRequest& request) override {
    requests.push_back(request);
    if (fail_with) return *fail_with;
    return response;
  }

  std::vector<core::HttpRequest> requests;
  core::HttpResponse response{200, {}, R"({"status":"success","data":{"resultType":"vector",
      "result":[{"metric":{"__name__":"up","job":"a"},"value":[1796202000,"1"]}]}})"};
  std::optional<core::Error> fail_with;
};

PrometheusOptions Options() {
  PrometheusOptions options;
  options.base_url = "http://prom.test:9090/";
  options.headers = {{"Authorization", "Bearer s3cret"}};
  options.connect_timeout = std::chrono::seconds(2);
  options.total_timeout = std::chrono::seconds(7);
  return options;
}

TEST(PrometheusRequestTest, SendsAnInstantQueryWithTheExpressionEncoded) {
  FakeHttpClient http;
  PrometheusSource source(http, Options());
  ASSERT_TRUE(source.Query({R"(max by (tenant) (up{job="a"}))", {}}).ok());
  ASSERT_EQ(http.requests.size(), 1u);
  EXPECT_EQ(http.requests[0].method, "GET");
  EXPECT_EQ(http.requests[0].url,
            "http://prom.test:9090/api/v1/query?query="
            "max%20by%20%28tenant%29%20%28up%7Bjob%3D%22a%22%7D%29");
  EXPECT_TRUE(http.requests[0].body.empty());
}

TEST(PrometheusRequestTest, AppendsParamsEncodedInTheirOrder) {
  FakeHttpClient http;
  PrometheusSource source(http, Options());
  ASSERT_TRUE(source.Query({"up", {{"time", "1796202000.5"}, {"timeout", "5s"}, {"a b", "&"}}}));
  EXPECT_EQ(http.requests.at(0).url,
            "http://prom.test:9090/api/v1/query?query=up&time=1796202000.5&timeout=5s&a%20b=%26");
}

TEST(PrometheusRequestTest, KeepsAProxyPathPrefix) {
  FakeHttpClient http;
  PrometheusOptions options = Options();
  options.base_url = "https://proxy.test/prometheus";
  PrometheusSource source(http, options);
  ASSERT_TRUE(source.Query({"up", {}}));
  EXPECT_EQ(http.requests.at(0).url, "https://proxy.test/prometheus/api/v1/query?query=up");
}

TEST(PrometheusRequestTest, SendsTheExtraHeadersAndTimeouts) {
  FakeHttpClient http;
  PrometheusSource source(http, Options());
  ASSERT_TRUE(source.Query({"up", {}}));
  const core::HttpRequest& sent = http.requests.at(0);
  EXPECT_EQ(core::FindHeader(sent.headers, "authorization"), "Bearer s3cret");
  EXPECT_EQ(core::FindHeader(sent.headers, "accept"), "application/json");
  EXPECT_EQ(sent.connect_timeout, std::chrono::seconds(2));
  EXPECT_EQ(sent.total_timeout, std::chrono::seconds(7));
}

TEST(PrometheusRequestTest, MapsTheAnswerToSeries) {
  FakeHttpClient http;
  PrometheusSource source(http, Options());
  core::Result<core::MetricAnswer> answer = source.Query({"up", {}});
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  ASSERT_EQ(answer->series.size(), 1u);
  EXPECT_EQ(answer->series[0].name, "up");
  EXPECT_EQ(answer->series[0].labels, (core::Labels{{"job", "a"}}));
}

TEST(PrometheusRequestTest, PassesTransportErrorsOnWithTheirCodeAndNoHeader) {
  FakeHttpClient http;
  http.fail_with = core::MakeError(ErrorCode::kTimeout,
                                   "GET http://prom.test:9090/api/v1/query?query=up: timed out");
  PrometheusSource source(http, Options());
  core::Result<core::MetricAnswer> answer = source.Query({"up", {}});
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().code, ErrorCode::kTimeout);
  EXPECT_TRUE(answer.error().IsRetryable());
  EXPECT_EQ(answer.error().message,
            "prometheus: GET http://prom.test:9090/api/v1/query?query=up: timed out");
  EXPECT_EQ(answer.error().message.find("s3cret"), std::string::npos);
}

TEST(PrometheusRequestTest, AnOverloadedPrometheusIsRetryable) {
  FakeHttpClient http;
  http.response = {
      503, {}, R"({"status":"error","errorType":"timeout","error":"query timed out"})"};
  PrometheusSource source(http, Options());
  core::Result<core::MetricAnswer> answer = source.Query({"up", {}});
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(answer.error().message, "prometheus: timeout: query timed out");
}

}  // namespace
}  // namespace quell::prometheus
