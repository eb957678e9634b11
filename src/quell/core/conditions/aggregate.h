#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace quell::core {

enum class Aggregation : uint8_t { kLast, kAvg, kMin, kMax, kSum, kCount, kP50, kP90, kP95, kP99 };

// "last", "avg", ..., "p99"; nullopt for an unknown name.
std::optional<Aggregation> ParseAggregation(std::string_view name);
const char* AggregationName(Aggregation aggregation);

// Reduces `values` (in time order, NaNs already removed) to one number. nullopt when empty.
// Percentiles use the nearest-rank method, the one a reader can check by hand.
std::optional<double> Aggregate(Aggregation aggregation, std::span<const double> values);

}  // namespace quell::core
