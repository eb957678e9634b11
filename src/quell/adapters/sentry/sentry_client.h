#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "quell/core/ports/http_client.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::sentry {

struct SentryOptions {
  std::string base_url = "https://sentry.io";  // a self-hosted Sentry's too; no trailing '/'
  std::string org;                             // the organization's slug
  std::string token;  // sent only as the bearer; never logged, never in a message
  core::Duration connect_timeout = std::chrono::seconds(5);
  core::Duration timeout = std::chrono::seconds(30);
};

// Builds Sentry requests (base URL + /api/0 path, the bearer header, the timeouts) and sends
// each once through `http`, which applies the caller's retry policy (429 with Retry-After
// included) and per-poll budget: what it returns is final. Thread-safe as far as `http` is.
class SentryClient {
 public:
  SentryClient(SentryOptions options, core::HttpClient& http);

  // GET base_url + path_and_query (which starts with "/api/0/" and is already encoded). A
  // transport failure's message names the method and URL, never the token.
  core::Result<core::HttpResponse> Get(const std::string& path_and_query) const;

  const SentryOptions& options() const { return options_; }

 private:
  SentryOptions options_;
  core::HttpClient& http_;
};

}  // namespace quell::sentry
