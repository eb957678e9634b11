#include "quell/core/redact/redact_prefilter.h"

#include <array>
#include <cstdint>

#include "quell/core/redact/redact_passes.h"
#include "quell/core/redact/redact_scan.h"

namespace quell::core::redact_internal {
namespace {

// The characters RedactRandomTokens reads a token from (IsTokenChar in redact_entropy.cc).
constexpr bool IsTokenByte(char c) {
  return IsAlnum(c) || c == '+' || c == '/' || c == '_' || c == '-';
}

bool StartsWithIgnoreCase(std::string_view s, size_t i, std::string_view lower_word) {
  if (s.size() - i < lower_word.size()) return false;
  for (size_t k = 0; k < lower_word.size(); ++k) {
    if (ToLower(s[i + k]) != lower_word[k]) return false;
  }
  return true;
}

// What ShapeOf needs of a byte, looked up once: it runs over every field before the passes.
constexpr uint8_t kDigit = 1;  // the low bit, so it adds straight to the count
constexpr uint8_t kToken = 2;  // IsTokenByte
constexpr uint8_t kRare = 4;   // ':', '=', '@' or the 'b' of "bearer": worth a closer look

constexpr std::array<uint8_t, 256> ByteKinds() {
  std::array<uint8_t, 256> table{};
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    uint8_t kind = 0;
    if (IsDigit(c)) kind |= kDigit;
    if (IsTokenByte(c)) kind |= kToken;
    if (c == ':' || c == '=' || c == '@' || c == 'b' || c == 'B') kind |= kRare;
    table[static_cast<size_t>(b)] = kind;
  }
  return table;
}

constexpr std::array<uint8_t, 256> kByteKinds = ByteKinds();

// First bytes of what RedactKeyTokens matches: the built-in prefixes, AKIA/ASIA and eyJ. Most
// words start with none of them, so most word starts cost one lookup.
constexpr std::array<bool, 256> BuiltInFirstBytes() {
  std::array<bool, 256> table{};
  for (std::string_view prefix : kKeyPrefixes) table[static_cast<unsigned char>(prefix[0])] = true;
  table['A'] = true;
  table['e'] = true;
  return table;
}

constexpr std::array<bool, 256> kBuiltInFirstBytes = BuiltInFirstBytes();

}  // namespace

TextShape ShapeOf(std::string_view text) {
  TextShape shape;
  size_t run = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const uint8_t kind = kByteKinds[static_cast<unsigned char>(text[i])];
    shape.digits += kind & kDigit;
    run = (kind & kToken) != 0 ? run + 1 : 0;
    shape.longest_token = run > shape.longest_token ? run : shape.longest_token;
    if ((kind & kRare) == 0) continue;
    const char c = text[i];
    if (c == '@') {
      shape.at_sign = true;
    } else if (c == ':' || c == '=' || StartsWithIgnoreCase(text, i, "bearer")) {
      shape.key_value_cue = true;
    }
  }
  return shape;
}

bool MayHoldKeyToken(std::string_view text, const std::vector<std::string>& extra_prefixes) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsWordChar(Before(text, i))) continue;
    const std::string_view rest = text.substr(i);
    if (extra_prefixes.empty() && !kBuiltInFirstBytes[static_cast<unsigned char>(rest[0])]) {
      continue;
    }
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
