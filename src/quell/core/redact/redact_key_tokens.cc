// Secrets recognised by their shape alone: API keys whose issuers give them a fixed prefix so
// that scanners like this one can find them, AWS access key ids, and JWTs.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/redact/redact_passes.h"
#include "quell/core/redact/redact_scan.h"

namespace quell::core::redact_internal {
namespace {

// Issued keys are random after the prefix: a digit, or a long mixed-case run. Requiring this
// keeps words that merely start like a prefix ("sk-learn", "ifr_config").
bool LooksGenerated(std::string_view body) {
  bool digit = false;
  bool lower = false;
  bool upper = false;
  for (char c : body) {
    digit = digit || IsDigit(c);
    lower = lower || IsLower(c);
    upper = upper || IsUpper(c);
  }
  return (body.size() >= 6 && digit) || (body.size() >= 20 && lower && upper);
}

size_t MatchPrefixed(std::string_view s, size_t i, const auto& prefixes) {
  const std::string_view rest = s.substr(i);
  for (std::string_view prefix : prefixes) {
    // The first-byte test first: this runs at nearly every token, and most fail there.
    if (prefix.empty() || prefix[0] != s[i] || !rest.starts_with(prefix)) continue;
    const size_t body = i + prefix.size();
    const size_t end = RunEnd(s, body, IsWordChar);
    if (LooksGenerated(s.substr(body, end - body))) return end;
  }
  return 0;
}

// AKIA (long-term) and ASIA (temporary) ids are exactly 20 upper-case letters and digits.
size_t MatchAwsKeyId(std::string_view s, size_t i) {
  if (s[i] != 'A') return 0;
  const std::string_view rest = s.substr(i);
  if (!rest.starts_with("AKIA") && !rest.starts_with("ASIA")) return 0;
  const size_t end = RunEnd(s, i, IsWordChar);
  if (end - i != 20) return 0;
  for (size_t k = i; k < end; ++k) {
    if (!IsUpper(s[k]) && !IsDigit(s[k])) return 0;
  }
  return end;
}

// header.payload.signature in base64url; both JSON parts start with eyJ ('{"'). An unsigned
// token has an empty signature; an encrypted one (JWE) has five parts.
size_t MatchJwt(std::string_view s, size_t i) {
  if (s[i] != 'e' || !s.substr(i).starts_with("eyJ")) return 0;
  const size_t header_end = RunEnd(s, i, IsWordChar);
  if (header_end - i < 8 || At(s, header_end) != '.') return 0;
  const size_t payload_end = RunEnd(s, header_end + 1, IsWordChar);
  if (payload_end - header_end < 3 || At(s, payload_end) != '.') return 0;
  size_t end = RunEnd(s, payload_end + 1, IsWordChar);
  for (int part = 4; part <= 5 && At(s, end) == '.' && IsWordChar(At(s, end + 1)); ++part) {
    end = RunEnd(s, end + 1, IsWordChar);
  }
  return end;
}

}  // namespace

std::string RedactKeyTokens(std::string_view text, const std::vector<std::string>& extra_prefixes,
                            RedactStats& stats) {
  return Rewrite(text, [&](std::string_view s, size_t i, std::string& out) -> size_t {
    if (IsWordChar(Before(s, i))) return 0;
    size_t end = MatchJwt(s, i);
    if (end == 0) end = MatchAwsKeyId(s, i);
    if (end == 0) end = MatchPrefixed(s, i, kKeyPrefixes);
    if (end == 0) end = MatchPrefixed(s, i, extra_prefixes);
    if (end > 0) {
      out.append("[secret]");
      ++stats.secrets;
      return end - i;
    }
    if (!IsWordChar(s[i])) return 0;
    const size_t word_end = RunEnd(s, i, IsWordChar);
    out.append(s.substr(i, word_end - i));
    return word_end - i;
  });
}

}  // namespace quell::core::redact_internal
