#include "quell/adapters/infrai/infrai_client.h"

#include <utility>

namespace quell::infrai {

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    const bool unreserved = (u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') ||
                            (u >= '0' && u <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0xF]);
    }
  }
  return out;
}

InfraiClient::InfraiClient(InfraiOptions options, Fetch fetch)
    : options_(std::move(options)), fetch_(std::move(fetch)) {}

core::Result<core::HttpResponse> InfraiClient::Get(std::string_view path, const QueryParams& query,
                                                   bool authenticated) const {
  core::HttpRequest request;
  request.method = "GET";
  request.url = options_.base_url + std::string(path);
  char separator = '?';
  for (const auto& [name, value] : query) {
    request.url += separator;
    request.url += PercentEncode(name) + "=" + PercentEncode(value);
    separator = '&';
  }
  request.headers.emplace_back("Accept", "application/json");
  if (authenticated && !options_.api_key.empty()) {
    request.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
  }
  request.connect_timeout = options_.connect_timeout;
  request.total_timeout = options_.timeout;
  return fetch_(request);
}

}  // namespace quell::infrai
