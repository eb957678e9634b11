#include "quell/adapters/http_server/security_headers.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace quell::http_server {
namespace {

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

void AddIfAbsent(HttpAnswer& answer, std::string_view name, std::string_view value) {
  for (const auto& [have, unused] : answer.headers) {
    if (SameName(have, name)) return;
  }
  answer.headers.emplace_back(std::string(name), std::string(value));
}

bool IsHtml(std::string_view content_type) {
  constexpr std::string_view kHtml = "text/html";
  return content_type.size() >= kHtml.size() &&
         SameName(content_type.substr(0, kHtml.size()), kHtml);
}

}  // namespace

void AddSecurityHeaders(HttpAnswer& answer) {
  AddIfAbsent(answer, "X-Content-Type-Options", "nosniff");
  if (!IsHtml(answer.content_type)) return;
  AddIfAbsent(answer, "Content-Security-Policy", kDefaultHtmlCsp);
  AddIfAbsent(answer, "X-Frame-Options", "DENY");
  AddIfAbsent(answer, "Referrer-Policy", "no-referrer");
  AddIfAbsent(answer, "Cache-Control", "no-store");
}

}  // namespace quell::http_server
