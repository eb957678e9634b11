#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/error_group.h"
#include "quell/core/metric_series.h"
#include "quell/core/result.h"
#include "quell/core/time.h"

namespace quell::core {

// Reads error groups. Implementations retry transient failures within their own budget; what
// they return is final for this poll. Thread-safe: enrichment calls Detail concurrently.
class ErrorGroupSource {
 public:
  virtual ~ErrorGroupSource() = default;
  // Walks the whole listing. Never an error: a failed walk is a listing with complete=false.
  virtual GroupListing List() = 0;
  // One group with its recent events. kNotFound for an unknown id; the transport's codes;
  // kCorrupt when the answer does not have the expected shape.
  virtual Result<GroupDetail> Detail(std::string_view group_id) = 0;
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

class MetricSource {
 public:
  virtual ~MetricSource() = default;
  // kCorrupt when the answer does not fit the expected shape; the transport's codes otherwise.
  virtual Result<MetricAnswer> Query(const MetricQuery& query) = 0;
};

}  // namespace quell::core
