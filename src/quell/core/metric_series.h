#pragma once

#include <string>
#include <vector>

#include "quell/core/error_group.h"
#include "quell/core/time.h"

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

}  // namespace quell::core
