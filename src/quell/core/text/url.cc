#include "quell/core/text/url.h"

#include <algorithm>

namespace quell::core {
namespace {

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

}  // namespace

std::string PercentEncode(std::string_view text, bool (*keep)(unsigned char)) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (keep(c)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0x0F];
    }
  }
  return out;
}

std::string UrlEncode(std::string_view text) { return PercentEncode(text, IsUnreserved); }

std::string MaskUrlPassword(std::string_view url) {
  const size_t hash = std::min(url.find('#'), url.size());
  const size_t question = std::min(url.find('?'), hash);
  std::string out(url.substr(0, question));
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
  // The query as every shown URL has it (redact_url.h): names only, since a connection string
  // may carry a password under other names (sslpassword, a driver's own).
  if (question < hash) {
    out.push_back('?');
    AppendRedactedQuery(out, url.substr(question + 1, hash - question - 1));
  }
  if (hash < url.size()) out += "#[redacted]";
  return out;
}

void AppendRedactedQuery(std::string& out, std::string_view query) {
  size_t begin = 0;
  while (true) {
    const size_t end = std::min(query.find('&', begin), query.size());
    const std::string_view part = query.substr(begin, end - begin);
    if (const size_t eq = part.find('='); eq != std::string_view::npos) {
      out.append(part.substr(0, eq + 1));
      if (eq + 1 < part.size()) out.append("[redacted]");
    } else if (!part.empty()) {
      out.append("[redacted]");
    }
    if (end == query.size()) break;
    out.push_back('&');
    begin = end + 1;
  }
}

}  // namespace quell::core
