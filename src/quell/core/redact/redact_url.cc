#include "quell/core/redact/redact_url.h"

#include <algorithm>

#include "quell/core/text/url.h"

namespace quell::core {
namespace {

constexpr std::string_view kRedacted = "[redacted]";

bool IsSchemeChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '-' || c == '.';
}

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Where a URL inside prose or JSON stops.
bool EndsUrl(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u <= 0x20 || u == 0x7f) return true;
  constexpr std::string_view kEnds = "\"'`\\<>";
  return kEnds.find(c) != std::string_view::npos;
}

// Punctuation that ends a sentence or closes a parenthesis right after a URL.
bool IsTrailingPunctuation(char c) {
  constexpr std::string_view kTrailing = ".,;:!)";
  return kTrailing.find(c) != std::string_view::npos;
}

}  // namespace

std::string RedactUrl(std::string_view url) {
  std::string out;
  out.reserve(url.size());
  size_t rest = 0;
  if (const size_t scheme = url.find("://"); scheme != std::string_view::npos) {
    const size_t authority = scheme + 3;
    const size_t authority_end = std::min(url.find_first_of("/?#", authority), url.size());
    out.append(url.substr(0, authority));
    const std::string_view host = url.substr(authority, authority_end - authority);
    const size_t at = host.rfind('@');
    rest = at == std::string_view::npos ? authority : authority + at + 1;
  }
  const size_t hash = std::min(url.find('#', rest), url.size());
  const size_t question = std::min(url.find('?', rest), hash);
  out.append(url.substr(rest, question - rest));
  if (question < hash) {
    out.push_back('?');
    AppendRedactedQuery(out, url.substr(question + 1, hash - question - 1));
  }
  if (hash < url.size()) {
    out.push_back('#');
    if (hash + 1 < url.size()) out.append(kRedacted);
  }
  return out;
}

std::string RedactUrlsIn(std::string_view text) {
  std::string out;
  size_t copied = 0;  // text[0, copied) is in `out`
  size_t from = 0;
  while (true) {
    const size_t mark = text.find("://", from);
    if (mark == std::string_view::npos) break;
    size_t start = mark;
    while (start > copied && IsSchemeChar(text[start - 1])) --start;
    while (start < mark && !IsLetter(text[start])) ++start;  // a scheme starts with a letter
    size_t end = mark + 3;
    while (end < text.size() && !EndsUrl(text[end])) ++end;
    while (end > mark + 3 && IsTrailingPunctuation(text[end - 1])) --end;
    if (start == mark) {  // "://" without a scheme: not a URL
      from = mark + 3;
      continue;
    }
    if (out.empty()) out.reserve(text.size());
    out.append(text.substr(copied, start - copied));
    out.append(RedactUrl(text.substr(start, end - start)));
    copied = end;
    from = end;
  }
  if (copied == 0) return std::string(text);
  out.append(text.substr(copied));
  return out;
}

}  // namespace quell::core
