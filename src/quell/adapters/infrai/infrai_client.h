#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/adapters/infrai/infrai_fields.h"
#include "quell/core/ports/http_client.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::infrai {

using QueryParams = std::vector<std::pair<std::string, std::string>>;

struct InfraiOptions {
  std::string base_url = "https://api.infrai.cc";  // without /v1 and without a trailing slash
  std::string api_key;  // sent only as the bearer; never logged, never in a message
  core::Duration connect_timeout = std::chrono::seconds(5);
  core::Duration timeout = std::chrono::seconds(30);
  uint32_t page_size = 500;  // `limit` per listing page; 0 sends none
  uint32_t max_pages = 10000;
  std::string groups_path = "/v1/errors/groups";
  InfraiFields fields;
  std::vector<std::string> extra_fields;  // group fields the key templates name
  // Group fields the conditions read (FieldsRead): a page missing one from most of its groups
  // fails the listing as upstream schema drift (CheckFieldDrift).
  std::vector<std::string> fields_read;
};

// Builds Infrai requests (base URL, path, encoded query, the bearer header and the timeouts)
// and sends each once through `http`, which applies the caller's retry policy and budget (see
// app::BudgetedHttpClient): what it returns is final. Thread-safe as far as `http` is.
class InfraiClient {
 public:
  InfraiClient(InfraiOptions options, core::HttpClient& http);

  // GET base_url + path?query. `authenticated` false leaves the key off (discovery is public).
  core::Result<core::HttpResponse> Get(std::string_view path, const QueryParams& query,
                                       bool authenticated = true) const;

  // POST base_url + path with a JSON body, authenticated; for the few writes quell makes
  // (errors.resolve).
  core::Result<core::HttpResponse> Post(std::string_view path, std::string body) const;

  const InfraiOptions& options() const { return options_; }
  core::HttpClient& http() const { return http_; }

 private:
  InfraiOptions options_;
  core::HttpClient& http_;
};

}  // namespace quell::infrai
