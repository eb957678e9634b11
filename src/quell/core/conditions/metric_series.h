#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "quell/core/conditions/error_group.h"
#include "quell/core/text/time.h"

namespace quell::core {

struct MetricPoint {
  WallTime at;
  double value = 0;
};

// One time series from a metric source: Infrai's metrics.query gives raw points over a window,
// a Prometheus instant query one point per series. Points are in time order.
struct MetricSeries {
  std::string name;
  Labels labels;  // sorted by name
  std::vector<MetricPoint> points;
};

// What a metric condition asks of its source: `expr` is a metric name for Infrai or a PromQL
// expression for Prometheus; `params` are extra query parameters, sent as they are.
struct MetricQuery {
  std::string expr;
  std::vector<std::pair<std::string, std::string>> params;
};

// The answer to one MetricQuery. `window_end` is the source's own notion of now when it
// states one (Infrai's `to`, Prometheus's evaluation time), so windows follow the source clock.
struct MetricAnswer {
  std::vector<MetricSeries> series;
  std::optional<WallTime> window_end;
};

}  // namespace quell::core
