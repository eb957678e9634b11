#pragma once

#include <string_view>

#include "quell/core/ports/sources.h"
#include "quell/core/result.h"

namespace quell::prometheus {

// Maps one answer of Prometheus's query API (/api/v1/query) to series. Pure: no I/O, no clock.
//   status "success": resultType vector, scalar or matrix become series; `__name__` is the
//     series name and leaves the labels. window_end is the evaluation time when the answer states
//     it (a vector's or scalar's sample time).
//   status "error": bad_data and execution are kRejected, timeout, canceled, internal and
//     unavailable are kUnavailable, not_found is kNotFound; the message carries Prometheus's text.
//   Another HTTP status without a Prometheus error body: "HTTP <status>" (5xx and 429
//     kUnavailable, 401/403 kPermissionDenied, otherwise kRejected).
//   Anything that does not fit (not JSON, a missing field, a string result): kCorrupt, naming
//   the place, e.g. `prometheus: data.result[3].value: expected [time, "value"]`.
core::Result<core::MetricAnswer> ParsePrometheusResponse(int http_status, std::string_view body);

}  // namespace quell::prometheus
