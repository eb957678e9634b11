#include "quell/core/ports/http_client.h"

#include <algorithm>
#include <cctype>

namespace quell::core {

std::string_view FindHeader(const HttpHeaders& headers, std::string_view name) {
  const auto same = [name](const std::string& candidate) {
    return candidate.size() == name.size() &&
           std::equal(candidate.begin(), candidate.end(), name.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) ==
                    std::tolower(static_cast<unsigned char>(b));
           });
  };
  for (const auto& [key, value] : headers) {
    if (same(key)) return value;
  }
  return {};
}

}  // namespace quell::core
