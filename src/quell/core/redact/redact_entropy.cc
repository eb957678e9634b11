// The catch-all for secrets without a known shape: a run of 32 or more base64 characters that
// mixes letters and digits the way random text does. Kept on purpose:
//   hex strings (commit SHAs, digests, trace and request ids, UUIDs): useful when debugging,
//     and not personal data; a hex secret is still caught after a secret-looking key;
//   identifiers and paths (snake_case, camelCase, kebab-case, a/b/c, pod-name-5f6d7c8b9a-x2k9p):
//     they are made of short words and change character class rarely; random text changes it
//     at nearly every other character.
#include <string>
#include <string_view>

#include "quell/core/redact/redact_passes.h"
#include "quell/core/redact/redact_scan.h"

namespace quell::core::redact_internal {
namespace {

constexpr size_t kMinLength = 32;
constexpr size_t kMinWord = 12;

bool IsTokenChar(char c) { return IsAlnum(c) || c == '+' || c == '/' || c == '_' || c == '-'; }

// Transitions between adjacent characters that random text makes often and words rarely:
// letter to digit, digit to letter, and lower to upper case. Upper to lower is left out because
// every Capitalised word makes one. Uniform random base64 makes about 0.42 per character,
// lower-case-and-digit tokens about 0.40, camelCase identifiers under 0.15.
size_t Transitions(std::string_view token) {
  size_t count = 0;
  for (size_t k = 1; k < token.size(); ++k) {
    const char a = token[k - 1];
    const char b = token[k];
    if (!IsAlnum(a) || !IsAlnum(b)) continue;
    if (IsDigit(a) != IsDigit(b) || (IsLower(a) && IsUpper(b))) ++count;
  }
  return count;
}

// Random base64url has a '-' or '_' about once in 32 characters, so it keeps long stretches
// without one; kebab- and snake_case names, such as Kubernetes pod names with their hash
// suffixes (checkout-api-5f6d7c8b9a-x2k9p), are made of short words.
size_t LongestWord(std::string_view token) {
  size_t longest = 0;
  size_t current = 0;
  for (char c : token) {
    current = c == '-' || c == '_' ? 0 : current + 1;
    longest = current > longest ? current : longest;
  }
  return longest;
}

bool LooksRandom(std::string_view token) {
  if (token.size() < kMinLength) return false;
  bool letter = false;
  bool digit = false;
  bool hex_only = true;
  for (char c : token) {
    letter = letter || IsAlpha(c);
    digit = digit || IsDigit(c);
    hex_only = hex_only && (IsHex(c) || c == '-');
  }
  return letter && digit && !hex_only && LongestWord(token) >= kMinWord &&
         Transitions(token) * 5 >= token.size();
}

bool IsWordSegment(std::string_view segment) {
  if (segment.size() < 2) return false;
  for (char c : segment) {
    if (!IsLower(c) && c != '_' && c != '-') return false;
  }
  return true;
}

// "/api/v2/...", "src/app/..." are paths: each segment is judged on its own. Random base64
// contains '/' too, but rarely starts with one or has two all-lower-case segments.
bool LooksLikePath(std::string_view token) {
  if (!token.empty() && token[0] == '/') return true;
  int words = 0;
  size_t begin = 0;
  while (begin <= token.size()) {
    size_t slash = token.find('/', begin);
    if (slash == std::string_view::npos) slash = token.size();
    if (IsWordSegment(token.substr(begin, slash - begin))) ++words;
    begin = slash + 1;
  }
  return words >= 2;
}

void AppendPath(std::string_view path, std::string& out, RedactStats& stats) {
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t slash = path.find('/', begin);
    if (slash == std::string_view::npos) slash = path.size();
    const std::string_view segment = path.substr(begin, slash - begin);
    if (LooksRandom(segment)) {
      out.append("[secret]");
      ++stats.secrets;
    } else {
      out.append(segment);
    }
    if (slash < path.size()) out.push_back('/');
    begin = slash + 1;
  }
}

}  // namespace

std::string RedactRandomTokens(std::string_view text, RedactStats& stats) {
  return Rewrite(text, [&stats](std::string_view s, size_t i, std::string& out) -> size_t {
    if (!IsTokenChar(s[i]) || IsTokenChar(Before(s, i))) return 0;
    const size_t end = RunEnd(s, i, IsTokenChar);
    const std::string_view token = s.substr(i, end - i);
    const bool long_enough = token.size() >= kMinLength;
    if (long_enough && token.find('/') != std::string_view::npos && LooksLikePath(token)) {
      AppendPath(token, out, stats);
      return end - i;
    }
    if (!long_enough || !LooksRandom(token)) {
      out.append(token);
      return end - i;
    }
    out.append("[secret]");
    ++stats.secrets;
    size_t padded = end;  // base64 padding belongs to the secret
    while (padded < end + 2 && At(s, padded) == '=') ++padded;
    return padded - i;
  });
}

}  // namespace quell::core::redact_internal
