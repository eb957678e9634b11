#include "quell/adapters/sentry/sentry_client.h"

#include <utility>

namespace quell::sentry {

SentryClient::SentryClient(SentryOptions options, core::HttpClient& http)
    : options_(std::move(options)), http_(http) {
  while (options_.base_url.ends_with('/')) options_.base_url.pop_back();
}

core::Result<core::HttpResponse> SentryClient::Get(const std::string& path_and_query) const {
  core::HttpRequest request;
  request.method = "GET";
  request.url = options_.base_url + path_and_query;
  request.headers.emplace_back("Authorization", "Bearer " + options_.token);
  request.headers.emplace_back("Accept", "application/json");
  request.connect_timeout = options_.connect_timeout;
  request.total_timeout = options_.timeout;
  auto response = http_.Send(request);
  if (!response) {
    return core::MakeError(response.error().code, "sentry: " + response.error().message);
  }
  return response;
}

}  // namespace quell::sentry
