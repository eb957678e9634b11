// Prometheus's answers to an instant query (docs/operations.md, "Fuzzing"), through
// PrometheusSource as the poller and `quell config check` send it. Input: a status byte, the
// body.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "quell/adapters/prometheus/prometheus_response.h"
#include "quell/adapters/prometheus/prometheus_source.h"
#include "quell/adapters/prometheus/query_check.h"

namespace {

class SameAnswer : public quell::core::HttpClient {
 public:
  SameAnswer(int status, std::string body) : status_(status), body_(std::move(body)) {}
  quell::core::Result<quell::core::HttpResponse> Send(
      const quell::core::HttpRequest& /*request*/) override {
    return quell::core::HttpResponse{status_, {{"Content-Type", "application/json"}}, body_};
  }

 private:
  int status_;
  std::string body_;
};

constexpr std::array<int, 10> kStatuses = {200, 200, 200, 200, 400, 401, 422, 429, 500, 503};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  quell::fuzz::FuzzInput input(data, size);
  const int status = kStatuses[input.Byte() % kStatuses.size()];
  const std::string body(input.Rest());

  SameAnswer http(status, body);
  quell::prometheus::PrometheusSource source(http, {.base_url = "http://prometheus.invalid:9090",
                                                    .headers = {},
                                                    .connect_timeout = std::chrono::seconds(1),
                                                    .total_timeout = std::chrono::seconds(1)});
  quell::core::MetricQuery query;
  query.expr = "sum by (route) (rate(http_errors_total[5m]))";
  const quell::prometheus::QueryCheck check = quell::prometheus::CheckQuery(source, query);

  // The source is the parser and nothing else: both read the same answer alike.
  const auto direct = quell::prometheus::ParsePrometheusResponse(status, body);
  quell::fuzz::Require(direct.ok() == (check.verdict == quell::prometheus::QueryVerdict::kAnswered),
                       "the source and the parser disagree");
  if (direct) {
    quell::fuzz::Require(direct->series.size() == check.answer.series.size(),
                         "the source and the parser read different series");
  }
  return 0;
}
