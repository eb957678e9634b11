#include "quell/core/redact_prefilter.h"

#include "quell/core/redact_passes.h"
#include "quell/core/redact_scan.h"

namespace quell::core::redact_internal {
namespace {

// The characters RedactRandomTokens reads a token from (IsTokenChar in redact_entropy.cc).
bool IsTokenByte(char c) { return IsAlnum(c) || c == '+' || c == '/' || c == '_' || c == '-'; }

bool StartsWithIgnoreCase(std::string_view s, size_t i, std::string_view lower_word) {
  if (s.size() - i < lower_word.size()) return false;
  for (size_t k = 0; k < lower_word.size(); ++k) {
    if (ToLower(s[i + k]) != lower_word[k]) return false;
  }
  return true;
}

}  // namespace

TextShape ShapeOf(std::string_view text) {
  TextShape shape;
  size_t run = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (IsDigit(c)) ++shape.digits;
    run = IsTokenByte(c) ? run + 1 : 0;
    if (run > shape.longest_token) shape.longest_token = run;
    if (c == ':' || c == '=') {
      shape.key_value_cue = true;
    } else if (c == '@') {
      shape.at_sign = true;
    } else if ((c == 'b' || c == 'B') && !shape.key_value_cue &&
               StartsWithIgnoreCase(text, i, "bearer")) {
      shape.key_value_cue = true;
    }
  }
  return shape;
}

bool MayHoldKeyToken(std::string_view text, const std::vector<std::string>& extra_prefixes) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsWordChar(Before(text, i))) continue;
    const std::string_view rest = text.substr(i);
    if (rest.starts_with("eyJ") || rest.starts_with("AKIA") || rest.starts_with("ASIA")) {
      return true;
    }
    for (std::string_view prefix : kKeyPrefixes) {
      if (prefix[0] == rest[0] && rest.starts_with(prefix)) return true;
    }
    for (const std::string& prefix : extra_prefixes) {
      if (!prefix.empty() && rest.starts_with(prefix)) return true;
    }
  }
  return false;
}

}  // namespace quell::core::redact_internal
