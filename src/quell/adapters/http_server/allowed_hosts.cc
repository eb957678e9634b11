#include "quell/adapters/http_server/allowed_hosts.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>

namespace quell::http_server {
namespace {

bool IsIpAddress(const std::string& host) {
  in6_addr v6{};
  in_addr v4{};
  return ::inet_pton(AF_INET, host.c_str(), &v4) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

}  // namespace

std::string HostName(std::string_view host_header) {
  while (!host_header.empty() && (host_header.front() == ' ' || host_header.front() == '\t')) {
    host_header.remove_prefix(1);
  }
  while (!host_header.empty() && (host_header.back() == ' ' || host_header.back() == '\t')) {
    host_header.remove_suffix(1);
  }
  std::string_view host = host_header;
  if (host.starts_with('[')) {
    const size_t close = host.find(']');
    host = close == std::string_view::npos ? host.substr(1) : host.substr(1, close - 1);
  } else if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  std::string name(host);
  while (name.ends_with('.')) name.pop_back();
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::string UrlHost(std::string_view url) {
  size_t rest = 0;
  if (url.starts_with("https://")) {
    rest = 8;
  } else if (url.starts_with("http://")) {
    rest = 7;
  } else {
    return {};
  }
  std::string_view authority = url.substr(rest, url.find_first_of("/?#", rest) - rest);
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  return HostName(authority);
}

bool IsAllowedHost(std::string_view host_header, const std::vector<std::string>& allowed) {
  const std::string host = HostName(host_header);
  if (host.empty()) return false;
  if (host == "localhost" || IsIpAddress(host)) return true;
  return std::find(allowed.begin(), allowed.end(), host) != allowed.end();
}

}  // namespace quell::http_server
