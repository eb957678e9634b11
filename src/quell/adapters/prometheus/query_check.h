#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quell/core/conditions/metric_condition.h"
#include "quell/core/ports/sources.h"

namespace quell::prometheus {

// What sending a query once says about it.
enum class QueryVerdict : uint8_t {
  kAnswered,  // Prometheus evaluated it; `answer` holds the series
  kInvalid,   // Prometheus refused it (bad_data, execution, another 4xx): the query is wrong
  kFailed,    // no verdict on the query: Prometheus unreachable, overloaded, or an odd answer
};

struct QueryCheck {
  QueryVerdict verdict = QueryVerdict::kFailed;
  // kInvalid: Prometheus's own words, e.g. "bad_data: 1:5: parse error: unexpected ..."; kFailed:
  // why there is no verdict. Never a header value.
  std::string message;
  core::MetricAnswer answer;
};

// Sends `query` once through `source` (a PrometheusSource) and classifies the answer.
QueryCheck CheckQuery(core::MetricSource& source, const core::MetricQuery& query);

// One finding about a Prometheus condition: kind is "invalid" (the query), "missing label"
// (a label the key reads), "no series" (the answer keeps none: a warning, the query may be
// right and just quiet now) or "unreachable"; the text names the condition and the query.
struct ConditionFinding {
  std::string kind;
  std::string text;
  bool warning = false;  // does not fail the check
};

// Sends the condition's query once and reports what would make it observe the wrong thing or
// nothing: an invalid query, key labels the answer lacks, an answer with no series it keeps.
std::vector<ConditionFinding> CheckCondition(core::MetricSource& source,
                                             const core::MetricCondition& condition);

}  // namespace quell::prometheus
