// E-mail addresses: local@domain.tld. Deliberately looser than RFC 5322 on the local part (any
// of its usual characters, and any non-ASCII byte, so internationalised addresses go too) and
// stricter on the domain (a dot, and a last label starting with a letter), which keeps "user@",
// "@Override", "lodash@4.17.21" and "git@host" (no TLD) as they are.
#include <string>
#include <string_view>

#include "quell/core/redact/redact_passes.h"
#include "quell/core/redact/redact_scan.h"

namespace quell::core::redact_internal {
namespace {

bool IsLocalChar(char c) {
  return IsAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-' ||
         static_cast<unsigned char>(c) >= 0x80U;
}

bool IsDomainChar(char c) { return IsAlnum(c) || c == '.' || c == '-'; }

// The end of a plausible domain starting at `p`, or 0 when there is none. A trailing '.' or
// '-' ends the sentence, not the domain, and labels that cannot end a domain are dropped from
// the end, so "a@example.com.x" still loses its address.
size_t DomainEnd(std::string_view s, size_t p) {
  size_t end = RunEnd(s, p, IsDomainChar);
  while (end > p && (s[end - 1] == '.' || s[end - 1] == '-')) --end;
  std::string_view domain = s.substr(p, end - p);
  while (true) {
    const size_t dot = domain.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || domain[dot - 1] == '.') return 0;
    const std::string_view tld = domain.substr(dot + 1);
    if (tld.size() >= 2 && IsAlpha(tld[0])) return p + domain.size();
    domain = domain.substr(0, dot);
  }
}

}  // namespace

std::string RedactEmails(std::string_view text, RedactStats& stats) {
  return Rewrite(text, [&stats](std::string_view s, size_t i, std::string& out) -> size_t {
    if (!IsLocalChar(s[i]) || IsLocalChar(Before(s, i))) return 0;
    const size_t at = RunEnd(s, i, IsLocalChar);
    // Leading punctuation belongs to the sentence: "(see .a@b.io)".
    size_t local = i;
    while (local < at && !IsAlnum(s[local]) && static_cast<unsigned char>(s[local]) < 0x80U) {
      ++local;
    }
    const size_t end = At(s, at) == '@' && local < at ? DomainEnd(s, at + 1) : 0;
    if (end == 0) {
      out.append(s.substr(i, at - i));
      return at - i;
    }
    out.append(s.substr(i, local - i));
    out.append("[email]");
    ++stats.emails;
    return end - i;
  });
}

}  // namespace quell::core::redact_internal
