#include "quell/adapters/prometheus/prometheus_response.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "quell/adapters/jsonl/upstream_json.h"
#include "quell/core/redact/redact.h"

namespace quell::prometheus {
namespace {

using core::ErrorCode;
using core::MakeError;
using core::MetricAnswer;
using core::MetricPoint;
using core::MetricSeries;
using nlohmann::json;

constexpr char kSampleShape[] = "expected [time, \"value\"]";

// Remote text in a message is cut short: it is for a person reading a log line, not a dump.
std::string Excerpt(std::string_view text, size_t limit = 200) {
  if (text.size() <= limit) return std::string(text);
  return std::string(text.substr(0, limit)) + "...";
}

core::Error Corrupt(const std::string& where, std::string_view what) {
  return MakeError(ErrorCode::kCorrupt, "prometheus: " + where + ": " + std::string(what));
}

// Prometheus formats values with Go's strconv.FormatFloat, which spells the non-finite ones
// NaN, +Inf and -Inf; std::from_chars rejects a leading '+'.
std::optional<double> ParseSampleValue(const std::string& text) {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// Sample times are float seconds with millisecond precision. Past about ±9e9 s (the year 2255) a
// double no longer holds whole microseconds, so such a time is a broken answer, not a date.
std::optional<core::WallTime> ParseSampleTime(const json& time) {
  const auto seconds = time.get<double>();
  if (!std::isfinite(seconds) || std::fabs(seconds) > 9e9) return std::nullopt;
  return core::WallTime{
      core::Duration{static_cast<core::Duration::rep>(std::llround(seconds * 1e6))}};
}

core::Result<MetricPoint> ParseSample(const json& sample, const std::string& where) {
  if (!sample.is_array() || sample.size() != 2 || !sample[0].is_number() ||
      !sample[1].is_string()) {
    return Corrupt(where, kSampleShape);
  }
  const std::optional<core::WallTime> at = ParseSampleTime(sample[0]);
  if (!at) return Corrupt(where + "[0]", "time out of range: " + sample[0].dump());
  const auto& text = sample[1].get_ref<const std::string&>();
  const std::optional<double> value = ParseSampleValue(text);
  if (!value) return Corrupt(where + "[1]", "not a number: \"" + Excerpt(text, 40) + "\"");
  return MetricPoint{*at, *value};
}

// `metric` holds the labels; `__name__` (absent after most functions) names the series.
core::Status ParseMetric(const json& item, const std::string& where, MetricSeries& series) {
  const auto metric = item.find("metric");
  if (metric == item.end()) return Corrupt(where + ".metric", "missing");
  if (!metric->is_object()) return Corrupt(where + ".metric", "expected an object of labels");
  for (const auto& [name, value] : metric->items()) {
    if (!value.is_string()) return Corrupt(where + ".metric." += name, "expected a string");
    if (name == "__name__") {
      series.name = value.get<std::string>();
    } else {
      series.labels.emplace_back(name, value.get<std::string>());
    }
  }
  std::sort(series.labels.begin(), series.labels.end());
  return {};
}

// Native histograms come as `histogram`/`histograms` instead of float samples; quell's
// conditions compare one number, so such a series cannot be read rather than be half-read.
core::Status RejectHistograms(const json& item, const std::string& where) {
  if (item.contains("histogram") || item.contains("histograms")) {
    return Corrupt(where, "a native histogram; only float samples can be read");
  }
  return {};
}

core::Result<MetricAnswer> ParseVector(const json& result) {
  if (!result.is_array()) return Corrupt("data.result", "expected an array for a vector");
  MetricAnswer answer;
  answer.series.reserve(result.size());
  for (size_t i = 0; i < result.size(); ++i) {
    const std::string where = "data.result[" + std::to_string(i) + "]";
    const json& item = result[i];
    if (!item.is_object()) return Corrupt(where, "expected an object");
    MetricSeries series;
    if (auto labels = ParseMetric(item, where, series); !labels) return labels.error();
    if (auto plain = RejectHistograms(item, where); !plain) return plain.error();
    const auto value = item.find("value");
    if (value == item.end()) return Corrupt(where + ".value", "missing");
    core::Result<MetricPoint> point = ParseSample(*value, where + ".value");
    if (!point) return point.error();
    // Every sample of an instant vector carries the evaluation time.
    if (!answer.window_end) answer.window_end = point->at;
    series.points.push_back(*point);
    answer.series.push_back(std::move(series));
  }
  return answer;
}

core::Result<MetricAnswer> ParseScalar(const json& result) {
  core::Result<MetricPoint> point = ParseSample(result, "data.result");
  if (!point) return point.error();
  MetricAnswer answer;
  answer.window_end = point->at;
  answer.series.push_back(MetricSeries{{}, {}, {*point}});
  return answer;
}

// A range vector (`x[5m]` in an instant query) does not state the evaluation time, so
// window_end stays empty: its last sample is earlier than the evaluation.
core::Result<MetricAnswer> ParseMatrix(const json& result) {
  if (!result.is_array()) return Corrupt("data.result", "expected an array for a matrix");
  MetricAnswer answer;
  answer.series.reserve(result.size());
  for (size_t i = 0; i < result.size(); ++i) {
    const std::string where = "data.result[" + std::to_string(i) + "]";
    const json& item = result[i];
    if (!item.is_object()) return Corrupt(where, "expected an object");
    MetricSeries series;
    if (auto labels = ParseMetric(item, where, series); !labels) return labels.error();
    if (auto plain = RejectHistograms(item, where); !plain) return plain.error();
    const auto values = item.find("values");
    if (values == item.end()) return Corrupt(where + ".values", "missing");
    if (!values->is_array()) return Corrupt(where + ".values", "expected an array of samples");
    series.points.reserve(values->size());
    for (size_t j = 0; j < values->size(); ++j) {
      const std::string at = where + ".values[" + std::to_string(j) + "]";
      core::Result<MetricPoint> point = ParseSample((*values)[j], at);
      if (!point) return point.error();
      if (!series.points.empty() && point->at <= series.points.back().at) {
        return Corrupt(at, "not after the sample before it");
      }
      series.points.push_back(*point);
    }
    answer.series.push_back(std::move(series));
  }
  return answer;
}

ErrorCode CodeForHttpStatus(int http_status) {
  if (http_status >= 500 || http_status == 429) return ErrorCode::kUnavailable;
  if (http_status == 401 || http_status == 403) return ErrorCode::kPermissionDenied;
  return ErrorCode::kRejected;
}

// Prometheus's errorType values (web/api/v1): bad_data (400) and execution (422) fail the same
// way again; the server-side ones may pass on the next poll.
ErrorCode CodeForErrorType(std::string_view type, int http_status) {
  if (type == "bad_data" || type == "execution") return ErrorCode::kRejected;
  if (type == "timeout" || type == "canceled" || type == "internal" || type == "unavailable") {
    return ErrorCode::kUnavailable;
  }
  if (type == "not_found") return ErrorCode::kNotFound;
  return http_status >= 500 ? ErrorCode::kUnavailable : ErrorCode::kRejected;
}

// The Error a `{"status":"error","errorType":...,"error":...}` body states; empty for a body
// that is not one.
std::optional<core::Error> StatedError(const json& doc, int http_status) {
  if (!doc.is_object()) return std::nullopt;
  const auto status = doc.find("status");
  const auto error = doc.find("error");
  if (status == doc.end() || *status != "error" || error == doc.end() || !error->is_string()) {
    return std::nullopt;
  }
  std::string type;
  if (const auto t = doc.find("errorType"); t != doc.end() && t->is_string()) {
    type = t->get<std::string>();
  }
  std::string message = "prometheus: ";
  if (!type.empty()) message += type + ": ";
  // Redacted where the remote's words become quell's text: a proxy in front of Prometheus may
  // quote the credential it refused.
  message += core::RedactErrorText(Excerpt(error->get_ref<const std::string&>(), 500));
  return MakeError(CodeForErrorType(type, http_status), std::move(message));
}

}  // namespace

core::Result<MetricAnswer> ParsePrometheusResponse(int http_status, std::string_view body) {
  const json doc = jsonl::ParseUpstreamJson(body);
  if (std::optional<core::Error> stated = StatedError(doc, http_status)) return *stated;
  if (http_status != 200) {
    return MakeError(CodeForHttpStatus(http_status),
                     "prometheus: HTTP " + std::to_string(http_status));
  }
  if (doc.is_discarded()) return Corrupt("body", "not JSON");
  if (!doc.is_object()) return Corrupt("body", "expected a JSON object");
  const auto status = doc.find("status");
  if (status == doc.end()) return Corrupt("status", "missing");
  if (*status == "error") return Corrupt("error", "missing or not a string for status \"error\"");
  if (*status != "success") {
    return Corrupt("status",
                   "expected \"success\" or \"error\", got " + Excerpt(status->dump(), 40));
  }
  const auto data = doc.find("data");
  if (data == doc.end()) return Corrupt("data", "missing");
  if (!data->is_object()) return Corrupt("data", "expected an object");
  const auto type = data->find("resultType");
  if (type == data->end()) return Corrupt("data.resultType", "missing");
  const auto result = data->find("result");
  if (result == data->end()) return Corrupt("data.result", "missing");
  if (*type == "vector") return ParseVector(*result);
  if (*type == "scalar") return ParseScalar(*result);
  if (*type == "matrix") return ParseMatrix(*result);
  return Corrupt("data.resultType",
                 "expected vector, scalar or matrix, got " + Excerpt(type->dump(), 40));
}

}  // namespace quell::prometheus
