// The /v1/metrics/... family (INFRAI.md §2) and /v1/observability/metric/report.
#include <httplib.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "quell/sim/group_json.h"
#include "quell/sim/router.h"

namespace quell::sim {
namespace {

using nlohmann::json;

constexpr double kReportCostUsd = 0.00001;  // [INF]

// Validates and stores one MetricPoint {name, value, type?, tags?, timestamp?}; "" when stored.
std::string StorePoint(SimState& state, const json& p) {
  if (!p.is_object()) return "a point must be an object";
  const std::string name = StringField(p, "name");
  if (name.empty()) return "name is required";
  if (!p.contains("value") || !p["value"].is_number()) return "value must be a number";
  auto ts = TimeField(p, "timestamp", state.clock.Now());
  if (!ts.ok()) return ts.error().message;
  state.store.AddPoint(name, TagsField(p, "tags"), StringField(p, "type"),
                       Point{*ts, p["value"].get<double>()});
  return "";
}

Reply Report(const httplib::Request& req, SimState& state) {
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded()) return Reply::Fail(400, "INVALID_ARGUMENT", "the body is not JSON");
  if (std::string why = StorePoint(state, body); !why.empty()) {
    return Reply::Fail(400, "INVALID_ARGUMENT", why);
  }
  return Reply::Ok({{"accepted", 1}});  // the doc says only { ok: boolean }; data is [INF]
}

Reply Batch(const httplib::Request& req, SimState& state) {
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object() || !body.contains("points") ||
      !body["points"].is_array()) {
    return Reply::Fail(400, "INVALID_ARGUMENT", "points (an array) is required");
  }
  int64_t accepted = 0;
  json errors = json::array();
  size_t index = 0;
  for (const json& p : body["points"]) {
    if (std::string why = StorePoint(state, p); why.empty()) {
      ++accepted;
    } else {
      errors.push_back({{"index", index}, {"message", why}});
    }
    ++index;
  }
  return Reply::Ok({{"accepted", accepted},
                    {"rejected", static_cast<int64_t>(errors.size())},
                    {"errors", std::move(errors)}});
}

// "k:v,k2:v2" or "k=v,k2=v2" [INF: the real filter syntax is undeclared].
Tags ParseTagFilter(const std::string& text) {
  Tags tags;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t sep = item.find_first_of(":=");
    if (sep != std::string::npos) tags[item.substr(0, sep)] = item.substr(sep + 1);
  }
  return tags;
}

double Aggregate(const std::string& agg, std::vector<double> values) {
  if (agg == "sum" || agg == "avg") {
    double sum = 0;
    for (double v : values) sum += v;
    return agg == "sum" ? sum : sum / static_cast<double>(values.size());
  }
  if (agg == "count") return static_cast<double>(values.size());
  if (agg == "min") return *std::min_element(values.begin(), values.end());
  if (agg == "max") return *std::max_element(values.begin(), values.end());
  if (agg == "last") return values.back();
  // p50 / p99: nearest rank.
  double q = agg == "p99" ? 0.99 : 0.5;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::max<size_t>(rank, 1) - 1];
}

core::Result<core::WallTime> TimeParam(const httplib::Request& req, const char* key,
                                       core::WallTime now, core::WallTime fallback) {
  const std::string text = req.get_param_value(key);
  if (text.empty()) return fallback;
  if (auto t = core::ParseRfc3339(text); t.ok()) return *t;
  if (auto d = core::ParseDuration(text); d.ok()) return now - *d;  // "1h" = an hour ago
  return core::MakeError(core::ErrorCode::kInvalidArgument,
                         std::string(key) + " must be RFC 3339 or a duration like 1h");
}

Reply Query(const httplib::Request& req, SimState& state) {
  const core::WallTime now = state.clock.Now();
  auto to = TimeParam(req, "to", now, now);
  if (!to.ok()) return Reply::Fail(400, "INVALID_ARGUMENT", to.error().message);
  auto from = TimeParam(req, "from", now, *to - state.config.metrics_window);
  if (!from.ok()) return Reply::Fail(400, "INVALID_ARGUMENT", from.error().message);
  const std::string name = req.get_param_value("name");
  const Tags want = ParseTagFilter(req.get_param_value("tags"));
  std::string agg = req.get_param_value("agg");
  std::string step_text = req.get_param_value("step");
  if (step_text.empty()) step_text = req.get_param_value("interval");
  static const char* kAggs[] = {"p50", "p99", "sum", "avg", "count", "min", "max", "last"};
  if (!agg.empty() && std::find(std::begin(kAggs), std::end(kAggs), agg) == std::end(kAggs)) {
    return Reply::Fail(400, "INVALID_ARGUMENT", "agg must be one of p50 p99 sum avg count min max");
  }
  core::Duration step{0};
  if (!step_text.empty()) {
    auto d = core::ParseDuration(step_text);
    if (!d.ok() || d->count() == 0) {
      return Reply::Fail(400, "INVALID_ARGUMENT", "step must be a duration like 60s");
    }
    step = *d;
    if (agg.empty()) agg = "avg";
  } else if (!agg.empty()) {
    step = *to - *from;  // one bucket over the whole range
  }
  json out = json::array();
  for (const Series& s : state.store.series()) {
    if (!name.empty() && s.name != name) continue;
    bool tags_match = std::all_of(want.begin(), want.end(), [&](const auto& kv) {
      auto it = s.tags.find(kv.first);
      return it != s.tags.end() && it->second == kv.second;
    });
    if (!tags_match) continue;
    json points = json::array();
    if (agg.empty()) {
      for (const Point& p : s.points) {
        if (p.ts >= *from && p.ts <= *to) {
          points.push_back({{"ts", core::FormatRfc3339(p.ts)}, {"value", p.value}});
        }
      }
    } else {
      // Buckets start at `from` so one-bucket queries cover exactly the asked range.
      std::vector<double> bucket;
      core::WallTime bucket_start = *from;
      auto flush = [&] {
        if (bucket.empty()) return;
        points.push_back(
            {{"ts", core::FormatRfc3339(bucket_start)}, {"value", Aggregate(agg, bucket)}});
        bucket.clear();
      };
      for (const Point& p : s.points) {
        if (p.ts < *from || p.ts > *to) continue;
        auto index = (p.ts - *from) / step;
        core::WallTime start = *from + index * step;
        if (start != bucket_start) {
          flush();
          bucket_start = start;
        }
        bucket.push_back(p.value);
      }
      flush();
    }
    json series = {{"name", s.name}, {"tags", s.tags}, {"type", s.type}, {"points", points}};
    series["agg"] = agg.empty() ? json(nullptr) : json(agg);
    series["step_seconds"] =
        step.count() == 0 ? json(nullptr)
                          : json(std::chrono::duration_cast<std::chrono::seconds>(step).count());
    out.push_back(std::move(series));
  }
  return Reply::Ok({{"series", std::move(out)},
                    {"from", core::FormatRfc3339(*from)},
                    {"to", core::FormatRfc3339(*to)}});
}

RouteInfo Info(std::string capability, std::string templ, double cost = 0) {
  RouteInfo info;
  info.capability = std::move(capability);
  info.templ = std::move(templ);
  info.cost_usd = cost;
  return info;
}

}  // namespace

void RegisterMetricRoutes(Router& router) {
  router.Post("/v1/metrics/report", Info("metrics.report", "/v1/metrics/report", kReportCostUsd),
              Report);
  router.Post(
      "/v1/observability/metric/report",
      Info("observability.metric.report", "/v1/observability/metric/report", kReportCostUsd),
      Report);
  router.Post("/v1/metrics/batch", Info("metrics.batch", "/v1/metrics/batch", kReportCostUsd),
              Batch);
  router.Get("/v1/metrics/query", Info("metrics.query", "/v1/metrics/query"), Query);
}

}  // namespace quell::sim
