#include "quell/adapters/prometheus/prometheus_source.h"

#include <utility>

#include "quell/adapters/prometheus/prometheus_response.h"
#include "quell/core/text/url.h"

namespace quell::prometheus {

PrometheusSource::PrometheusSource(core::HttpClient& http, PrometheusOptions options)
    : http_(http), options_(std::move(options)) {
  while (!options_.base_url.empty() && options_.base_url.back() == '/') {
    options_.base_url.pop_back();
  }
}

std::string PrometheusSource::QueryUrl(const core::MetricQuery& query) const {
  std::string url = options_.base_url + "/api/v1/query?query=" + core::UrlEncode(query.expr);
  for (const auto& [name, value] : query.params) {
    url += '&';
    url += core::UrlEncode(name);
    url += '=';
    url += core::UrlEncode(value);
  }
  return url;
}

core::Result<core::MetricAnswer> PrometheusSource::Query(const core::MetricQuery& query) {
  core::HttpRequest request;
  request.method = "GET";
  request.url = QueryUrl(query);
  request.headers = options_.headers;
  if (core::FindHeader(request.headers, "Accept").empty()) {
    request.headers.emplace_back("Accept", "application/json");
  }
  request.connect_timeout = options_.connect_timeout;
  request.total_timeout = options_.total_timeout;
  core::Result<core::HttpResponse> response = http_.Send(request);
  if (!response) {
    // The client's message names the method and URL, never a header: safe to pass on.
    return core::MakeError(response.error().code, "prometheus: " + response.error().message);
  }
  return ParsePrometheusResponse(response->status, response->body);
}

}  // namespace quell::prometheus
