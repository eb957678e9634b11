#include "quell/adapters/infrai/infrai_client.h"

#include <utility>

#include "quell/core/text/url.h"

namespace quell::infrai {

InfraiClient::InfraiClient(InfraiOptions options, core::HttpClient& http)
    : options_(std::move(options)), http_(http) {}

core::Result<core::HttpResponse> InfraiClient::Get(std::string_view path, const QueryParams& query,
                                                   bool authenticated) const {
  core::HttpRequest request;
  request.method = "GET";
  request.url = options_.base_url + std::string(path);
  char separator = '?';
  for (const auto& [name, value] : query) {
    request.url += separator;
    request.url += core::UrlEncode(name) + "=" + core::UrlEncode(value);
    separator = '&';
  }
  request.headers.emplace_back("Accept", "application/json");
  if (authenticated && !options_.api_key.empty()) {
    request.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
  }
  request.connect_timeout = options_.connect_timeout;
  request.total_timeout = options_.timeout;
  return http_.Send(request);
}

core::Result<core::HttpResponse> InfraiClient::Post(std::string_view path, std::string body) const {
  core::HttpRequest request;
  request.method = "POST";
  request.url = options_.base_url + std::string(path);
  request.headers.emplace_back("Accept", "application/json");
  request.headers.emplace_back("Content-Type", "application/json");
  if (!options_.api_key.empty()) {
    request.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
  }
  request.body = std::move(body);
  request.connect_timeout = options_.connect_timeout;
  request.total_timeout = options_.timeout;
  return http_.Send(request);
}

}  // namespace quell::infrai
