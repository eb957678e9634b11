#pragma once

#include <chrono>
#include <string>

#include "quell/core/ports/http_client.h"
#include "quell/core/ports/sources.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::prometheus {

struct PrometheusOptions {
  // Where the HTTP API lives: "http://127.0.0.1:9090", or a proxy's prefix such as
  // "https://proxy.example/prometheus". A trailing '/' is ignored.
  std::string base_url;
  // Sent with every request, e.g. {"Authorization", "Bearer ..."} for a proxied Prometheus.
  // Values may be credentials: they are never logged nor put in an error message.
  core::HttpHeaders headers;
  core::Duration connect_timeout = std::chrono::seconds(5);
  core::Duration total_timeout = std::chrono::seconds(30);
};

// A MetricSource over Prometheus's instant-query API: Query sends
// GET {base_url}/api/v1/query?query=<expr>[&<params>] and maps the answer as
// ParsePrometheusResponse documents. One attempt per call; retrying is the poller's decision.
// Thread-safe as far as the HttpClient is.
class PrometheusSource final : public core::MetricSource {
 public:
  PrometheusSource(core::HttpClient& http, PrometheusOptions options);

  // kRejected for a bad expression, kUnavailable for a Prometheus that is down or overloaded,
  // kCorrupt for an answer of the wrong shape; the HttpClient's codes for transport failures.
  core::Result<core::MetricAnswer> Query(const core::MetricQuery& query) override;

  // The URL Query sends, for tests and for logging (it holds no header).
  std::string QueryUrl(const core::MetricQuery& query) const;

 private:
  core::HttpClient& http_;
  PrometheusOptions options_;
};

}  // namespace quell::prometheus
