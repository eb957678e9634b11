#include "quell/adapters/prometheus/prometheus_response.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace quell::prometheus {
namespace {

using core::ErrorCode;
using core::Labels;
using core::MetricAnswer;
using core::WallTime;

// 2026-12-02T09:00:00Z, the evaluation time of the answers below.
constexpr WallTime kAt{std::chrono::seconds(1796202000)};

MetricAnswer Parse(const std::string& body) {
  core::Result<MetricAnswer> answer = ParsePrometheusResponse(200, body);
  EXPECT_TRUE(answer.ok()) << answer.error().message;
  return answer.ok() ? *answer : MetricAnswer{};
}

core::Error ParseError(int status, const std::string& body) {
  core::Result<MetricAnswer> answer = ParsePrometheusResponse(status, body);
  EXPECT_FALSE(answer.ok()) << "parsed: " << body;
  return answer.ok() ? core::Error{} : answer.error();
}

std::string Success(const std::string& type, const std::string& result) {
  return R"({"status":"success","data":{"resultType":")" + type + R"(","result":)" + result + "}}";
}

TEST(PrometheusResponseTest, ReadsAVectorAsOneSeriesPerResultWithSortedLabels) {
  const MetricAnswer answer = Parse(Success("vector", R"([
    {"metric":{"__name__":"model_answer_latency_p99_seconds","tenant":"acme","job":"x"},
     "value":[1796202000,"2.5"]},
    {"metric":{"__name__":"model_answer_latency_p99_seconds","tenant":"globex","job":"x"},
     "value":[1796202000,"0.25"]}])"));
  ASSERT_EQ(answer.series.size(), 2u);
  EXPECT_EQ(answer.series[0].name, "model_answer_latency_p99_seconds");
  EXPECT_EQ(answer.series[0].labels, (Labels{{"job", "x"}, {"tenant", "acme"}}));
  ASSERT_EQ(answer.series[0].points.size(), 1u);
  EXPECT_EQ(answer.series[0].points[0].at, kAt);
  EXPECT_EQ(answer.series[0].points[0].value, 2.5);
  EXPECT_EQ(answer.series[1].labels, (Labels{{"job", "x"}, {"tenant", "globex"}}));
  EXPECT_EQ(answer.series[1].points[0].value, 0.25);
  EXPECT_EQ(answer.window_end, kAt);
}

TEST(PrometheusResponseTest, ALabelThatIsNotUtf8IsReadWithReplacementCharacters) {
  const MetricAnswer answer = Parse(Success("vector",
                                            "[{\"metric\":{\"tenant\":\"z\xFCrich\"},"
                                            "\"value\":[1796202000,\"1\"]}]"));
  ASSERT_EQ(answer.series.size(), 1u);
  EXPECT_EQ(answer.series[0].labels, (Labels{{"tenant", "z\xEF\xBF\xBDrich"}}));
}

TEST(PrometheusResponseTest, KeepsMillisecondsOfTheEvaluationTime) {
  const MetricAnswer answer =
      Parse(Success("vector", R"([{"metric":{},"value":[1796202000.781,"1"]}])"));
  ASSERT_EQ(answer.series.size(), 1u);
  EXPECT_EQ(answer.series[0].points[0].at, kAt + std::chrono::milliseconds(781));
  EXPECT_EQ(answer.series[0].name, "");  // an aggregation drops __name__
  EXPECT_TRUE(answer.series[0].labels.empty());
}

TEST(PrometheusResponseTest, ReadsNanAndInfinities) {
  const MetricAnswer answer = Parse(Success("vector", R"([
    {"metric":{"i":"0"},"value":[1796202000,"NaN"]},
    {"metric":{"i":"1"},"value":[1796202000,"+Inf"]},
    {"metric":{"i":"2"},"value":[1796202000,"-Inf"]},
    {"metric":{"i":"3"},"value":[1796202000,"-1.5e-7"]}])"));
  ASSERT_EQ(answer.series.size(), 4u);
  EXPECT_TRUE(std::isnan(answer.series[0].points[0].value));
  EXPECT_EQ(answer.series[1].points[0].value, INFINITY);
  EXPECT_EQ(answer.series[2].points[0].value, -INFINITY);
  EXPECT_EQ(answer.series[3].points[0].value, -1.5e-7);
}

TEST(PrometheusResponseTest, AnEmptyVectorIsZeroSeriesWithoutAWindowEnd) {
  const MetricAnswer answer = Parse(Success("vector", "[]"));
  EXPECT_TRUE(answer.series.empty());
  EXPECT_FALSE(answer.window_end.has_value());
}

TEST(PrometheusResponseTest, ReadsAScalarAsOneUnlabeledSeries) {
  const MetricAnswer answer = Parse(Success("scalar", R"([1796202000,"3"])"));
  ASSERT_EQ(answer.series.size(), 1u);
  EXPECT_EQ(answer.series[0].name, "");
  EXPECT_TRUE(answer.series[0].labels.empty());
  ASSERT_EQ(answer.series[0].points.size(), 1u);
  EXPECT_EQ(answer.series[0].points[0].value, 3);
  EXPECT_EQ(answer.window_end, kAt);
}

TEST(PrometheusResponseTest, ReadsAMatrixAsSeveralPointsInTimeOrder) {
  const MetricAnswer answer = Parse(Success("matrix", R"([
    {"metric":{"__name__":"up","job":"a"},
     "values":[[1796201998,"1"],[1796201999,"0"],[1796202000,"1"]]}])"));
  ASSERT_EQ(answer.series.size(), 1u);
  EXPECT_EQ(answer.series[0].name, "up");
  EXPECT_EQ(answer.series[0].labels, (Labels{{"job", "a"}}));
  ASSERT_EQ(answer.series[0].points.size(), 3u);
  EXPECT_EQ(answer.series[0].points[0].at, kAt - std::chrono::seconds(2));
  EXPECT_EQ(answer.series[0].points[1].value, 0);
  EXPECT_EQ(answer.series[0].points[2].at, kAt);
  // A range vector's samples end before the evaluation time, which the answer does not state.
  EXPECT_FALSE(answer.window_end.has_value());
}

TEST(PrometheusResponseTest, IgnoresWarningsAndUnknownFields) {
  const MetricAnswer answer = Parse(
      R"({"status":"success","warnings":["partial"],"infos":[],"data":{"resultType":"vector",
          "result":[{"metric":{},"value":[1796202000,"1"],"extra":1}]}})");
  EXPECT_EQ(answer.series.size(), 1u);
}

TEST(PrometheusResponseTest, BadDataIsRejectedWithPrometheusText) {
  const core::Error error = ParseError(
      400,
      R"({"status":"error","errorType":"bad_data","error":"1:5: parse error: unclosed left parenthesis"})");
  EXPECT_EQ(error.code, ErrorCode::kRejected);
  EXPECT_FALSE(error.IsRetryable());
  EXPECT_EQ(error.message, "prometheus: bad_data: 1:5: parse error: unclosed left parenthesis");
}

TEST(PrometheusResponseTest, MapsErrorTypesToRetryableOrPermanentCodes) {
  const auto code = [](int status, const std::string& type) {
    return ParseError(status, R"({"status":"error","errorType":")" + type + R"(","error":"e"})")
        .code;
  };
  EXPECT_EQ(code(422, "execution"), ErrorCode::kRejected);
  EXPECT_EQ(code(503, "timeout"), ErrorCode::kUnavailable);
  EXPECT_EQ(code(503, "canceled"), ErrorCode::kUnavailable);
  EXPECT_EQ(code(500, "internal"), ErrorCode::kUnavailable);
  EXPECT_EQ(code(503, "unavailable"), ErrorCode::kUnavailable);
  EXPECT_EQ(code(404, "not_found"), ErrorCode::kNotFound);
  EXPECT_EQ(code(502, "something_new"), ErrorCode::kUnavailable);
  EXPECT_EQ(code(400, "something_new"), ErrorCode::kRejected);
  // An error body is an error whatever the status line said.
  EXPECT_EQ(code(200, "bad_data"), ErrorCode::kRejected);
}

TEST(PrometheusResponseTest, ANon200WithoutAnErrorBodyNamesTheStatus) {
  core::Error error = ParseError(502, "<html>Bad Gateway</html>");
  EXPECT_EQ(error.code, ErrorCode::kUnavailable);
  EXPECT_EQ(error.message, "prometheus: HTTP 502");
  EXPECT_EQ(ParseError(429, "").code, ErrorCode::kUnavailable);
  EXPECT_EQ(ParseError(401, "unauthorized").code, ErrorCode::kPermissionDenied);
  EXPECT_EQ(ParseError(403, "{}").code, ErrorCode::kPermissionDenied);
  EXPECT_EQ(ParseError(404, "404 page not found").code, ErrorCode::kRejected);
  // A success body under another status is not believed.
  error = ParseError(500, Success("vector", "[]"));
  EXPECT_EQ(error.code, ErrorCode::kUnavailable);
  EXPECT_EQ(error.message, "prometheus: HTTP 500");
}

TEST(PrometheusResponseTest, MalformedShapesAreCorruptAndNameThePlace) {
  const auto message = [](const std::string& body) {
    const core::Error error = ParseError(200, body);
    EXPECT_EQ(error.code, ErrorCode::kCorrupt) << body;
    return error.message;
  };
  EXPECT_EQ(message("not json"), "prometheus: body: not JSON");
  EXPECT_EQ(message(""), "prometheus: body: not JSON");
  EXPECT_EQ(message("[]"), "prometheus: body: expected a JSON object");
  EXPECT_EQ(message("{}"), "prometheus: status: missing");
  EXPECT_EQ(message(R"({"status":"ok"})"),
            R"(prometheus: status: expected "success" or "error", got "ok")");
  EXPECT_EQ(message(R"({"status":"error"})"),
            R"(prometheus: error: missing or not a string for status "error")");
  EXPECT_EQ(message(R"({"status":"success"})"), "prometheus: data: missing");
  EXPECT_EQ(message(R"({"status":"success","data":[]})"), "prometheus: data: expected an object");
  EXPECT_EQ(message(R"({"status":"success","data":{"result":[]}})"),
            "prometheus: data.resultType: missing");
  EXPECT_EQ(message(R"({"status":"success","data":{"resultType":"vector"}})"),
            "prometheus: data.result: missing");
  EXPECT_EQ(message(Success("string", R"([1796202000,"hello"])")),
            R"(prometheus: data.resultType: expected vector, scalar or matrix, got "string")");
  EXPECT_EQ(message(Success("vector", "{}")),
            "prometheus: data.result: expected an array for a vector");
  EXPECT_EQ(message(Success("matrix", "{}")),
            "prometheus: data.result: expected an array for a matrix");
  EXPECT_EQ(message(Success("scalar", R"("3")")),
            R"(prometheus: data.result: expected [time, "value"])");
}

TEST(PrometheusResponseTest, MalformedSeriesAreCorruptAndNameTheResult) {
  const auto message = [](const std::string& type, const std::string& result) {
    const core::Error error = ParseError(200, Success(type, result));
    EXPECT_EQ(error.code, ErrorCode::kCorrupt) << result;
    return error.message;
  };
  const std::string ok = R"({"metric":{},"value":[1796202000,"1"]},)";
  EXPECT_EQ(message("vector", "[" + ok + ok + ok + R"({"metric":{},"value":"1"}])"),
            R"(prometheus: data.result[3].value: expected [time, "value"])");
  EXPECT_EQ(message("vector", R"([{"metric":{},"value":[1796202000,1]}])"),
            R"(prometheus: data.result[0].value: expected [time, "value"])");
  EXPECT_EQ(message("vector", R"([{"metric":{},"value":["1796202000","1"]}])"),
            R"(prometheus: data.result[0].value: expected [time, "value"])");
  EXPECT_EQ(message("vector", R"([{"metric":{},"value":[1796202000,"1",3]}])"),
            R"(prometheus: data.result[0].value: expected [time, "value"])");
  EXPECT_EQ(message("vector", R"([{"metric":{},"value":[1796202000,"fast"]}])"),
            R"(prometheus: data.result[0].value[1]: not a number: "fast")");
  EXPECT_EQ(message("vector", R"([{"metric":{},"value":[1796202000,"1.5x"]}])"),
            R"(prometheus: data.result[0].value[1]: not a number: "1.5x")");
  EXPECT_EQ(message("vector", R"([{"metric":{},"value":[1e300,"1"]}])"),
            "prometheus: data.result[0].value[0]: time out of range: 1e+300");
  EXPECT_EQ(message("vector", R"([{"value":[1796202000,"1"]}])"),
            "prometheus: data.result[0].metric: missing");
  EXPECT_EQ(message("vector", R"([{"metric":[],"value":[1796202000,"1"]}])"),
            "prometheus: data.result[0].metric: expected an object of labels");
  EXPECT_EQ(message("vector", R"([{"metric":{"tenant":7},"value":[1796202000,"1"]}])"),
            "prometheus: data.result[0].metric.tenant: expected a string");
  EXPECT_EQ(message("vector", R"([{"metric":{}}])"), "prometheus: data.result[0].value: missing");
  EXPECT_EQ(message("vector", R"([7])"), "prometheus: data.result[0]: expected an object");
  EXPECT_EQ(message("vector", R"([{"metric":{},"histogram":[1796202000,{"count":"1"}]}])"),
            "prometheus: data.result[0]: a native histogram; only float samples can be read");
  EXPECT_EQ(message("matrix", R"([{"metric":{}}])"), "prometheus: data.result[0].values: missing");
  EXPECT_EQ(message("matrix", R"([{"metric":{},"values":[[1796202000,"1"],"x"]}])"),
            R"(prometheus: data.result[0].values[1]: expected [time, "value"])");
  EXPECT_EQ(message("matrix", R"([{"metric":{},"values":[[1796202000,"1"],[1796201999,"1"]]}])"),
            "prometheus: data.result[0].values[1]: not after the sample before it");
}

}  // namespace
}  // namespace quell::prometheus
