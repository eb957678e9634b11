#include "quell/core/text/url.h"

#include <algorithm>

namespace quell::core {
namespace {

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

}  // namespace

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsUnreserved(c)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0x0F];
    }
  }
  return out;
}

std::string MaskUrlPassword(std::string_view url) {
  std::string out(url);
  constexpr std::string_view kMask = "****";
  if (const size_t scheme = out.find("://"); scheme != std::string::npos) {
    const size_t authority = scheme + 3;
    const size_t end = std::min(out.find_first_of("/?#", authority), out.size());
    const size_t at = out.rfind('@', end - 1);
    if (at != std::string::npos && at >= authority && at < end) {
      const size_t colon = out.find(':', authority);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, kMask);
    }
  }
  for (size_t at = out.find("password="); at != std::string::npos;
       at = out.find("password=", at + 1)) {
    if (at > 0 && out[at - 1] != '?' && out[at - 1] != '&' && out[at - 1] != ' ') continue;
    const size_t value = at + 9;
    const size_t end = std::min(out.find_first_of("& ", value), out.size());
    out.replace(value, end - value, kMask);
  }
  return out;
}

}  // namespace quell::core
