#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "quell/core/conditions/aggregate.h"
#include "quell/core/conditions/condition.h"
#include "quell/core/conditions/key_template.h"
#include "quell/core/conditions/metric_series.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/observation.h"
#include "quell/core/result.h"

namespace quell::core {

enum class ThresholdDirection : uint8_t { kAbove, kBelow };

// Unhealthy past `trigger`. With a `recovery` value the band between the two is hysteresis: a
// key that is open stays unhealthy there and a key that is not stays healthy, so a value
// hovering at the line does not open and resolve on alternate polls.
struct Threshold {
  ThresholdDirection direction = ThresholdDirection::kAbove;
  double trigger = 0;
  std::optional<double> recovery;
};

// What a key with no data in the window is: unknown unless configured otherwise, because a
// metric that stopped reporting proves nothing about health.
enum class NoDataRule : uint8_t { kUnknown, kHealthy, kUnhealthy };

// A threshold condition. The condition, not each sample, is the key: series are filtered by
// `metric` and `where`, merged by the `group_by` labels (each series alone when unset), their
// points in the window reduced by `aggregation`, and the value compared with the threshold.
struct MetricCondition {
  ConditionCommon common;
  KeyTemplate key;  // over the group's labels, and {name} for the series name
  MetricQuery query;
  std::string metric;  // keep only series of this name; empty keeps all
  Labels where;        // keep only series with these label values
  std::optional<std::vector<std::string>> group_by;
  Aggregation aggregation = Aggregation::kLast;
  std::optional<Duration> window;  // ending at the source's window_end (else `at`)
  Threshold threshold;
  NoDataRule no_data = NoDataRule::kUnknown;
};

// kInvalidArgument naming the field when a recovery value is on the wrong side of the trigger.
Status Validate(const MetricCondition& condition);

// Health of one aggregated value; `was_open` decides inside the hysteresis band.
Health Classify(const Threshold& threshold, double value, bool was_open);

// The series of `answer` the condition keeps (its metric and `where` filters); 0 means the
// condition observes nothing from this answer.
size_t CountSelectedSeries(const MetricCondition& condition, const MetricAnswer& answer);

// A label the key template reads that some kept series lack: their key renders the
// placeholder's fallback ("-") instead of a value.
struct MissingKeyLabel {
  std::string label;
  size_t lacking = 0;  // kept series without it (or, with group_by, not grouped by it)
  size_t series = 0;   // kept series in all
};
// Every key-template label of `condition` missing from some kept series of `answer`, in
// template order; {name} and {__name__} are the series name, never missing.
std::vector<MissingKeyLabel> FindMissingKeyLabels(const MetricCondition& condition,
                                                  const MetricAnswer& answer);

// Turns one answer into observations at `at`, sorted by key. A failed query observes every
// open incident of the condition as unknown. Open incidents the answer no longer shows, and
// groups with no point in the window, follow the no-data rule.
std::vector<Observation> ObserveMetric(const MetricCondition& condition,
                                       const Result<MetricAnswer>& answer,
                                       std::span<const Incident> open_incidents, WallTime at);

}  // namespace quell::core
