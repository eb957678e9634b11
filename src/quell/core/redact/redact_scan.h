#pragma once

// Internal to the redaction passes: byte classes and the rewrite loop they share. Every class is
// ASCII-only on purpose, so a byte of a multi-byte UTF-8 sequence always ends a token.

#include <cstddef>
#include <string>
#include <string_view>

namespace quell::core::redact_internal {

constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
constexpr bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
constexpr bool IsAlpha(char c) { return IsLower(c) || IsUpper(c); }
constexpr bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }
constexpr bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
constexpr char ToLower(char c) { return IsUpper(c) ? static_cast<char>(c - 'A' + 'a') : c; }
// Identifier and base64url characters: what key names, API keys and JWT segments are made of.
constexpr bool IsWordChar(char c) { return IsAlnum(c) || c == '_' || c == '-'; }

// The byte at `i`, or '\0' past either end, so look-ahead needs no bounds checks.
inline char At(std::string_view s, size_t i) { return i < s.size() ? s[i] : '\0'; }
inline char Before(std::string_view s, size_t i) { return i > 0 ? s[i - 1] : '\0'; }

// The first index at or after `i` where `in_class` fails.
template <typename Pred>
size_t RunEnd(std::string_view s, size_t i, Pred in_class) {
  while (i < s.size() && in_class(s[i])) ++i;
  return i;
}

// True when a number may begin at `i`: not inside a word, and not the next part of a version,
// decimal, time or range ("1.2", "09:30", "10-20"), which would otherwise read as new numbers.
inline bool NumberMayStartAt(std::string_view s, size_t i) {
  const char prev = Before(s, i);
  if (IsAlnum(prev) || prev == '_') return false;
  const bool joiner = prev == '.' || prev == ',' || prev == ':' || prev == '/' || prev == '-';
  return !(joiner && i >= 2 && IsDigit(s[i - 2]));
}

// One left-to-right pass. `match(text, i, out)` either returns how many bytes from `i` it
// consumed, having appended their replacement (or their copy) to `out`, or 0 to have one byte
// copied. A matcher that rejects a whole token consumes it, so no byte is scanned again by the
// same matcher and each pass stays linear.
template <typename Match>
std::string Rewrite(std::string_view text, Match&& match) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    size_t used = match(text, i, out);
    if (used == 0) {
      out.push_back(text[i]);
      used = 1;
    }
    i += used;
  }
  return out;
}

}  // namespace quell::core::redact_internal
