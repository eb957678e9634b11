#include "quell/core/conditions/aggregate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

namespace quell::core {
namespace {

constexpr std::array<std::pair<std::string_view, Aggregation>, 10> kNames = {{
    {"last", Aggregation::kLast},
    {"avg", Aggregation::kAvg},
    {"min", Aggregation::kMin},
    {"max", Aggregation::kMax},
    {"sum", Aggregation::kSum},
    {"count", Aggregation::kCount},
    {"p50", Aggregation::kP50},
    {"p90", Aggregation::kP90},
    {"p95", Aggregation::kP95},
    {"p99", Aggregation::kP99},
}};

double NearestRank(std::span<const double> values, double percentile) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const double rank = std::ceil(percentile / 100.0 * static_cast<double>(sorted.size()));
  const size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

}  // namespace

std::optional<Aggregation> ParseAggregation(std::string_view name) {
  for (const auto& [text, value] : kNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

const char* AggregationName(Aggregation aggregation) {
  for (const auto& [text, value] : kNames) {
    if (value == aggregation) return text.data();
  }
  return "unknown";
}

std::optional<double> Aggregate(Aggregation aggregation, std::span<const double> values) {
  if (values.empty()) return std::nullopt;
  switch (aggregation) {
    case Aggregation::kLast:
      return values.back();
    case Aggregation::kAvg:
      return std::accumulate(values.begin(), values.end(), 0.0) /
             static_cast<double>(values.size());
    case Aggregation::kMin:
      return *std::min_element(values.begin(), values.end());
    case Aggregation::kMax:
      return *std::max_element(values.begin(), values.end());
    case Aggregation::kSum:
      return std::accumulate(values.begin(), values.end(), 0.0);
    case Aggregation::kCount:
      return static_cast<double>(values.size());
    case Aggregation::kP50:
      return NearestRank(values, 50);
    case Aggregation::kP90:
      return NearestRank(values, 90);
    case Aggregation::kP95:
      return NearestRank(values, 95);
    case Aggregation::kP99:
      return NearestRank(values, 99);
  }
  return std::nullopt;
}

}  // namespace quell::core
