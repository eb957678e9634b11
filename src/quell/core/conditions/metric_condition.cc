#include "quell/core/conditions/metric_condition.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "quell/core/text/json_escape.h"

namespace quell::core {
namespace {

bool Selected(const MetricCondition& condition, const MetricSeries& series) {
  if (!condition.metric.empty() && series.name != condition.metric) return false;
  return std::all_of(condition.where.begin(), condition.where.end(), [&series](const auto& want) {
    const auto value = FindLabel(series.labels, want.first);
    return value && *value == want.second;
  });
}

// The labels a series contributes to its group: the group_by ones, or all of them.
Labels GroupLabels(const MetricCondition& condition, const MetricSeries& series) {
  if (!condition.group_by) return series.labels;
  Labels labels;
  for (const std::string& name : *condition.group_by) {
    const auto value = FindLabel(series.labels, name);
    labels.emplace_back(name, value ? std::string(*value) : std::string());
  }
  std::sort(labels.begin(), labels.end());
  return labels;
}

void AppendNumber(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += std::isnan(value) ? "null" : (value > 0 ? "\"+Inf\"" : "\"-Inf\"");
    return;
  }
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, ec == std::errc() ? end : buffer);
}

// Numbers and names the config chose (and the series' metric name); no free text from the
// source, so nothing to redact. The direction, the metric and the recovery line are there so a
// message can say "error_rate 0.31 is above the threshold 0.2 (recovers below 0.1)".
std::string MetricEvidence(const MetricCondition& condition, std::string_view metric,
                           std::optional<double> value, size_t points, size_t series) {
  std::string out = "{\"agg\":\"";
  out += AggregationName(condition.aggregation);
  out += "\",\"direction\":\"";
  out += condition.threshold.direction == ThresholdDirection::kBelow ? "below" : "above";
  out += "\",\"metric\":";
  AppendJsonString(out, metric);
  out += ",\"points\":" + std::to_string(points);
  if (condition.threshold.recovery) {
    out += ",\"recovery\":";
    AppendNumber(out, *condition.threshold.recovery);
  }
  out += ",\"series\":" + std::to_string(series);
  out += ",\"threshold\":";
  AppendNumber(out, condition.threshold.trigger);
  out += ",\"value\":";
  if (value) {
    AppendNumber(out, *value);
  } else {
    out += "null";
  }
  out += '}';
  return out;
}

Health NoDataHealth(NoDataRule rule) {
  switch (rule) {
    case NoDataRule::kHealthy:
      return Health::kHealthy;
    case NoDataRule::kUnhealthy:
      return Health::kUnhealthy;
    case NoDataRule::kUnknown:
      break;
  }
  return Health::kUnknown;
}

struct Group {
  std::vector<double> values;
  size_t series = 0;
  Labels labels;       // what the key was rendered from (the first series')
  std::string metric;  // the condition's metric, else the first series' name
};

}  // namespace

Status Validate(const MetricCondition& condition) {
  const Threshold& t = condition.threshold;
  if (!std::isfinite(t.trigger)) {
    return MakeError(ErrorCode::kInvalidArgument, "threshold must be a finite number");
  }
  if (t.recovery) {
    const bool wrong_side = t.direction == ThresholdDirection::kAbove ? *t.recovery > t.trigger
                                                                      : *t.recovery < t.trigger;
    if (!std::isfinite(*t.recovery) || wrong_side) {
      return MakeError(ErrorCode::kInvalidArgument,
                       t.direction == ThresholdDirection::kAbove
                           ? "recovery must be at or below the `above` threshold"
                           : "recovery must be at or above the `below` threshold");
    }
  }
  if (condition.window && condition.window->count() <= 0) {
    return MakeError(ErrorCode::kInvalidArgument, "window must be positive");
  }
  return {};
}

Health Classify(const Threshold& threshold, double value, bool was_open) {
  const bool above = threshold.direction == ThresholdDirection::kAbove;
  const bool breached = above ? value > threshold.trigger : value < threshold.trigger;
  if (breached) return Health::kUnhealthy;
  if (!threshold.recovery) return Health::kHealthy;
  const bool recovered = above ? value <= *threshold.recovery : value >= *threshold.recovery;
  if (recovered) return Health::kHealthy;
  return was_open ? Health::kUnhealthy : Health::kHealthy;
}

size_t CountSelectedSeries(const MetricCondition& condition, const MetricAnswer& answer) {
  return static_cast<size_t>(std::count_if(
      answer.series.begin(), answer.series.end(),
      [&condition](const MetricSeries& series) { return Selected(condition, series); }));
}

std::vector<MissingKeyLabel> FindMissingKeyLabels(const MetricCondition& condition,
                                                  const MetricAnswer& answer) {
  std::vector<MissingKeyLabel> out;
  for (const std::string& field : condition.key.Fields()) {
    if (field == "name" || field == "__name__") continue;
    if (std::any_of(out.begin(), out.end(), [&](const auto& m) { return m.label == field; })) {
      continue;
    }
    MissingKeyLabel missing{field, 0, 0};
    for (const MetricSeries& series : answer.series) {
      if (!Selected(condition, series)) continue;
      ++missing.series;
      const auto value = FindLabel(GroupLabels(condition, series), field);
      if (!value || value->empty()) ++missing.lacking;
    }
    if (missing.lacking > 0) out.push_back(std::move(missing));
  }
  return out;
}

std::vector<Observation> ObserveMetric(const MetricCondition& condition,
                                       const Result<MetricAnswer>& answer,
                                       std::span<const Incident> open_incidents, WallTime at) {
  std::unordered_set<std::string_view> open_keys;
  for (const Incident& incident : open_incidents) {
    if (incident.condition == condition.common.name) open_keys.insert(incident.key);
  }
  std::vector<Observation> out;
  const auto observe = [&](std::string key, Health health, std::string evidence, Labels labels) {
    out.push_back(Observation{.key = std::move(key),
                              .at = at,
                              .health = health,
                              .condition = condition.common.name,
                              .evidence = std::move(evidence),
                              .labels = std::move(labels),
                              .upstream_count = std::nullopt,
                              .first_seen_at = std::nullopt,
                              .expire = false,
                              .evidence_fingerprint = std::nullopt});
  };

  std::map<std::string, Group> groups;  // by rendered key
  if (answer.ok()) {
    const WallTime end = answer->window_end.value_or(at);
    for (const MetricSeries& series : answer->series) {
      if (!Selected(condition, series)) continue;
      const Labels labels = GroupLabels(condition, series);
      const KeyTemplate::Lookup lookup = [&](std::string_view field) {
        if (field == "name" || field == "__name__") {
          return std::optional<std::string_view>(series.name);
        }
        return FindLabel(labels, field);
      };
      const std::string key = condition.key.Render(lookup);
      Group& group = groups[key];
      if (group.series == 0) group.labels = condition.key.LabelsOf(lookup);
      ++group.series;
      if (group.metric.empty())
        group.metric = condition.metric.empty() ? series.name : condition.metric;
      for (const MetricPoint& point : series.points) {
        if (std::isnan(point.value) || point.at > end) continue;
        if (condition.window && point.at <= end - *condition.window) continue;
        group.values.push_back(point.value);
      }
    }
  }

  for (auto& [key, group] : groups) {
    const std::optional<double> value = Aggregate(condition.aggregation, group.values);
    const Health health = value ? Classify(condition.threshold, *value, open_keys.contains(key))
                                : NoDataHealth(condition.no_data);
    observe(key, health,
            MetricEvidence(condition, group.metric, value, group.values.size(), group.series),
            health == Health::kUnhealthy ? std::move(group.labels) : Labels{});
  }
  for (const std::string_view key : open_keys) {
    if (groups.contains(std::string(key))) continue;
    observe(std::string(key), answer.ok() ? NoDataHealth(condition.no_data) : Health::kUnknown, {},
            {});
  }
  std::sort(out.begin(), out.end(),
            [](const Observation& a, const Observation& b) { return a.key < b.key; });
  return out;
}

}  // namespace quell::core
