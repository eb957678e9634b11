// Infrai's answers (docs/operations.md, "Fuzzing"): every request the Infrai source, discovery
// and the contract check make is answered with the input's status and body, read by the code
// the poller and `quell config check` run. Input: a mode byte (listing, group detail, metric
// query, discovery manifest, a capability's params, the contract check), a status byte, the body.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "quell/adapters/infrai/contract_check.h"
#include "quell/adapters/infrai/discovery.h"
#include "quell/adapters/infrai/field_drift.h"
#include "quell/adapters/infrai/infrai_client.h"
#include "quell/adapters/infrai/infrai_error_source.h"
#include "quell/adapters/infrai/infrai_metric_source.h"

namespace {

using quell::core::HttpRequest;
using quell::core::HttpResponse;
using quell::core::Result;

// Answers every request alike, as a server that always says the same would.
class SameAnswer : public quell::core::HttpClient {
 public:
  SameAnswer(int status, std::string body) : status_(status), body_(std::move(body)) {}
  Result<HttpResponse> Send(const HttpRequest& /*request*/) override {
    ++requests_;
    return HttpResponse{status_, {{"Content-Type", "application/json"}}, body_};
  }
  int requests() const { return requests_; }

 private:
  int status_;
  std::string body_;
  int requests_ = 0;
};

constexpr std::array<int, 12> kStatuses = {200, 200, 200, 200, 400, 401,
                                           402, 403, 404, 429, 500, 503};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quell::infrai;  // NOLINT(google-build-using-namespace): one harness
  quell::fuzz::FuzzInput input(data, size);
  const uint8_t mode = input.Byte();
  const int status = kStatuses[input.Byte() % kStatuses.size()];
  SameAnswer http(status, std::string(input.Rest()));

  InfraiOptions options;
  options.base_url = "http://infrai.invalid";
  options.api_key = "ifr_pk_fuzz";
  options.page_size = 2;
  options.max_pages = 8;
  options.extra_fields = {"tags.tenant", "level"};
  if ((mode & 0x80) != 0) options.fields_read = {"last_seen", "level", "tags"};
  const InfraiClient client(options, http);

  switch ((mode & 0x7f) % 6) {
    case 0: {
      InfraiErrorSource source(client);
      const quell::core::GroupListing listing = source.List();
      // The same page again repeats its cursor, so no walk goes past the second page.
      quell::fuzz::Require(listing.pages <= 2 && http.requests() <= 2, "listing walked on");
      break;
    }
    case 1: {
      InfraiErrorSource source(client);
      (void)source.Detail("grp_1");
      break;
    }
    case 2: {
      InfraiMetricSource source(client);
      quell::core::MetricQuery query;
      query.params = {{"name", "http.errors"}};
      (void)source.Query(query);
      break;
    }
    case 3: {
      auto manifest = FetchManifest(client);
      if (manifest) {
        (void)manifest->Find("errors.groups");
        (void)manifest->FindRoute("GET", "/v1/errors/group_detail/grp_1");
        (void)manifest->FindRoute("POST", "/v1/errors/resolve/a/b");
      }
      break;
    }
    case 4:
      (void)FetchDeclaredParams(client, "metrics.query");
      break;
    default: {
      ContractNeeds needs;
      needs.routes = {{"errs", "GET", "/v1/errors/groups"},
                      {"errs", "GET", "/v1/errors/group_detail/{id}"}};
      needs.metrics = {{"lat", "http.latency", {"route", "tenant"}, {{"service", "api"}}}};
      needs.group_fields = {{"errs", {"tags.tenant", "level"}}};
      (void)CheckContract(client, needs);
      break;
    }
  }
  return 0;
}
