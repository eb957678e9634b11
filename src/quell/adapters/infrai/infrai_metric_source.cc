#include "quell/adapters/infrai/infrai_metric_source.h"

#include <simdjson.h>

#include <algorithm>
#include <string>

#include "quell/adapters/infrai/envelope.h"
#include "quell/adapters/infrai/json_fields.h"

namespace quell::infrai {
namespace {

core::Error Corrupt(const std::string& where, const std::string& what) {
  return core::MakeError(core::ErrorCode::kCorrupt, where + ": " + what);
}

}  // namespace

InfraiMetricSource::InfraiMetricSource(const InfraiClient& client) : client_(client) {}

core::Result<core::MetricAnswer> InfraiMetricSource::Query(const core::MetricQuery& query) {
  const InfraiFields& names = client_.options().fields;
  const std::string what = "GET /v1/metrics/query";
  auto response = client_.Get("/v1/metrics/query", query.params);
  if (!response) return response.error();
  simdjson::dom::parser parser;
  auto data = OpenEnvelope(parser, *response, what);
  if (!data) return data.error();

  core::MetricAnswer answer;
  if (const auto to = FindField(*data, std::vector<std::string>{"to", "end"})) {
    if (auto at = AsTime(*to)) answer.window_end = *at;
  }
  const auto series = FindField(*data, names.series);
  simdjson::dom::array array;
  if (!series || series->get_array().get(array)) {
    return Corrupt(what, "data has no array of series (tried " + names.series.front() +
                             "); map it in infrai.fields.series");
  }
  size_t index = 0;
  for (const simdjson::dom::element item : array) {
    const std::string where = what + ": data.series[" + std::to_string(index++) + "]";
    simdjson::dom::object object;
    if (item.get_object().get(object)) return Corrupt(where, "not an object");
    core::MetricSeries out;
    std::string_view name;
    if (object["name"].get_string().get(name)) return Corrupt(where, "no string \"name\"");
    out.name = std::string(name);
    if (const auto labels = FindField(object, names.series_labels)) {
      auto parsed = AsLabels(*labels);
      if (!parsed) return Corrupt(where, parsed.error().message);
      out.labels = std::move(*parsed);
    }
    const auto points = FindField(object, names.points);
    simdjson::dom::array point_array;
    if (!points || points->get_array().get(point_array)) {
      return Corrupt(where, "no array of points (tried " + names.points.front() + ")");
    }
    for (const simdjson::dom::element point : point_array) {
      simdjson::dom::object p;
      if (point.get_object().get(p)) return Corrupt(where, "a point is not an object");
      const auto at = FindField(p, names.point_time);
      const auto value = FindField(p, names.point_value);
      if (!at || !value) {
        return Corrupt(where, "a point lacks its time (" + names.point_time.front() +
                                  ") or value (" + names.point_value.front() + ")");
      }
      auto parsed_at = AsTime(*at);
      auto parsed_value = AsNumber(*value);
      if (!parsed_at || !parsed_value)
        return Corrupt(where, "a point has a malformed time or value");
      out.points.push_back({*parsed_at, *parsed_value});
    }
    std::sort(out.points.begin(), out.points.end(),
              [](const core::MetricPoint& a, const core::MetricPoint& b) { return a.at < b.at; });
    answer.series.push_back(std::move(out));
  }
  return answer;
}

}  // namespace quell::infrai
