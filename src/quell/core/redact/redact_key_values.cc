// Secrets recognised by their context: the value after a secret-looking key, the token after
// "Bearer", the password in a URL. Context finds passwords that look like ordinary words, which
// nothing else can.
#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

#include "quell/core/redact/redact.h"
#include "quell/core/redact/redact_passes.h"
#include "quell/core/redact/redact_scan.h"

namespace quell::core {
namespace {

using redact_internal::At;
using redact_internal::IsAlnum;
using redact_internal::IsAlpha;
using redact_internal::RunEnd;
using redact_internal::ToLower;

constexpr std::array<std::string_view, 14> kSecretKeyWords = {
    "password",  "passwd",      "secret",     "token",         "api_key", "apikey",  "access_key",
    "accesskey", "private_key", "privatekey", "authorization", "cookie",  "session", "credential"};
// For each byte, the secret words (bits indexing kSecretKeyWords) that start with it, so
// LooksSecretKey tries at each position only the words that could match there.
constexpr std::array<uint16_t, 256> WordsByFirstByte() {
  std::array<uint16_t, 256> table{};
  for (size_t w = 0; w < kSecretKeyWords.size(); ++w) {
    table[static_cast<unsigned char>(kSecretKeyWords[w][0])] |= static_cast<uint16_t>(1U << w);
  }
  return table;
}
constexpr std::array<uint16_t, 256> kWordsByFirstByte = WordsByFirstByte();

constexpr std::string_view kSecret = "[secret]";

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (ToLower(a[k]) != ToLower(b[k])) return false;
  }
  return true;
}

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsLineEnd(char c) { return c == '\n' || c == '\r'; }

// Where an unquoted value ends: at whitespace or at what delimits values in query strings,
// JSON, cookies and markup.
bool EndsUnquoted(char c) {
  constexpr std::string_view kEnds = " \t\n\r,;&}])\"'<>\\";
  return kEnds.find(c) != std::string_view::npos;
}

// "Bearer", "Basic", "Digest" and friends stay readable: they say what kind of credential it
// was, which helps an operator and reveals nothing.
size_t SchemeLength(std::string_view value) {
  const size_t word = RunEnd(value, 0, IsAlpha);
  if (word == 0 || At(value, word) != ' ') return 0;
  const size_t rest = RunEnd(value, word, IsBlank);
  return rest < value.size() && !EndsUnquoted(value[rest]) ? rest : 0;
}

// A value an earlier redaction already replaced (error text is redacted where it is made and
// again where it is kept): redacting twice must be redacting once.
bool IsPlaceholder(std::string_view s, size_t p) {
  const std::string_view rest = s.substr(p);
  for (const std::string_view mark : {"[secret]", "[redacted]", "[email]", "[phone]", "[card]"}) {
    if (rest.starts_with(mark)) return true;
  }
  return false;
}

bool IsNothingToHide(std::string_view value) {
  return value.empty() || EqualsIgnoreCase(value, "null") || EqualsIgnoreCase(value, "true") ||
         EqualsIgnoreCase(value, "false");
}

enum class KeyStyle { kPlain, kAuthorization, kCookie };

KeyStyle StyleOf(std::string_view key) {
  std::string lower;
  for (char c : key) lower.push_back(ToLower(c));
  if (lower.ends_with("authorization")) return KeyStyle::kAuthorization;
  if (lower.find("cookie") != std::string::npos) return KeyStyle::kCookie;
  return KeyStyle::kPlain;
}

struct Value {
  size_t begin = 0;  // of the content, inside any quotes
  size_t end = 0;
  size_t after = 0;  // past the closing quote
};

// Reads the value at `p`: "quoted" or 'quoted' (with backslash escapes), \"escaped-quoted\" as
// in JSON embedded in a string, or bare. An unterminated quote runs to the end of the line.
Value ReadValue(std::string_view s, size_t p, KeyStyle style) {
  Value v;
  if (At(s, p) == '\\' && At(s, p + 1) == '"') {
    v.begin = p + 2;
    size_t q = v.begin;
    while (q < s.size() && !IsLineEnd(s[q]) && !(s[q] == '\\' && At(s, q + 1) == '"')) ++q;
    v.end = q;
    v.after = q < s.size() && s[q] == '\\' ? q + 2 : q;
    return v;
  }
  if (At(s, p) == '"' || At(s, p) == '\'') {
    const char quote = s[p];
    v.begin = p + 1;
    size_t q = v.begin;
    while (q < s.size() && s[q] != quote && !IsLineEnd(s[q])) q += s[q] == '\\' ? 2U : 1U;
    v.end = q < s.size() ? q : s.size();
    v.after = v.end < s.size() && s[v.end] == quote ? v.end + 1 : v.end;
    return v;
  }
  v.begin = p;
  if (style == KeyStyle::kCookie) {
    v.end = RunEnd(s, p, [](char c) { return !IsLineEnd(c); });
  } else {
    size_t q = p;
    if (style == KeyStyle::kAuthorization) q += SchemeLength(s.substr(p));
    v.end = RunEnd(s, q, [](char c) { return !EndsUnquoted(c); });
  }
  v.after = v.end;
  return v;
}

// At a word `key` = [i, key_end): when a separator and a value follow and the key looks secret,
// writes the key and separator verbatim and the value as "[secret]". Returns bytes consumed.
size_t MatchKeyValue(std::string_view s, size_t i, size_t key_end, std::string& out,
                     RedactStats& stats) {
  size_t p = key_end;
  if (At(s, p) == '\\' && At(s, p + 1) == '"') {
    p += 2;
  } else if (At(s, p) == '"' || At(s, p) == '\'') {
    p += 1;
  }
  p = RunEnd(s, p, IsBlank);
  if (At(s, p) != ':' && At(s, p) != '=') return 0;
  ++p;
  if (At(s, p) == '>') ++p;  // Ruby's and PHP's "key" => "value"
  p = RunEnd(s, p, IsBlank);
  const std::string_view key = s.substr(i, key_end - i);
  if (!LooksSecretKey(key)) return 0;
  const KeyStyle style = StyleOf(key);
  const Value v = ReadValue(s, p, style);
  std::string_view content = s.substr(v.begin, v.end - v.begin);
  if (IsNothingToHide(content)) return 0;
  const size_t keep = style == KeyStyle::kAuthorization ? SchemeLength(content) : 0;
  if (IsPlaceholder(s, v.begin + keep)) return 0;
  out.append(s.substr(i, v.begin + keep - i));
  out.append(kSecret);
  out.append(s.substr(v.end, v.after - v.end));
  ++stats.secrets;
  return v.after - i;
}

bool IsBearerTokenChar(char c) {
  return IsAlnum(c) || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '=' ||
         c == '-';
}

// "Bearer <token>" outside an Authorization header, as in logged request dumps. The token must
// look generated, so prose such as "bearer tokens expire" is kept.
size_t MatchBearer(std::string_view s, size_t i, size_t key_end, std::string& out,
                   RedactStats& stats) {
  const size_t begin = RunEnd(s, key_end, IsBlank);
  if (begin == key_end) return 0;
  const size_t end = RunEnd(s, begin, IsBearerTokenChar);
  const std::string_view token = s.substr(begin, end - begin);
  const bool generated =
      token.size() >= 20 || (token.size() >= 6 && RunEnd(token, 0, IsAlpha) < token.size());
  if (!generated) return 0;
  out.append(s.substr(i, begin - i));
  out.append(kSecret);
  ++stats.secrets;
  return end - i;
}

bool IsUserInfoChar(char c) {
  return c > ' ' && c != '/' && c != '?' && c != '#' && c != '@' && c != '"' && c != '\'' &&
         c != '<' && c != '>';
}

// "scheme://user:password@host" in connection strings: the password goes, the user stays (it
// says which account failed).
size_t MatchUrlPassword(std::string_view s, size_t i, size_t scheme_end, std::string& out,
                        RedactStats& stats) {
  if (s.substr(scheme_end, 3) != "://") return 0;
  const size_t user = scheme_end + 3;
  const size_t at = RunEnd(s, user, IsUserInfoChar);
  if (At(s, at) != '@') return 0;
  const size_t colon = s.substr(user, at - user).find(':');
  if (colon == std::string_view::npos || user + colon + 1 == at) return 0;
  out.append(s.substr(i, user + colon + 1 - i));
  out.append(kSecret);
  ++stats.secrets;
  return at - i;
}

}  // namespace

bool LooksSecretKey(std::string_view name) {
  // A substring search over the name as lower case with '-' read as '_', done in place: this
  // runs for every evidence field and tag name, and most names start no secret word anywhere.
  auto fold = [](char c) { return c == '-' ? '_' : ToLower(c); };
  auto word_at = [&](size_t i, std::string_view word) {
    if (name.size() - i < word.size()) return false;
    for (size_t k = 0; k < word.size(); ++k) {
      if (fold(name[i + k]) != word[k]) return false;
    }
    return true;
  };
  if (name.size() == 4 && word_at(0, "auth")) return true;
  for (size_t i = 0; i < name.size(); ++i) {
    for (uint32_t words = kWordsByFirstByte[static_cast<unsigned char>(fold(name[i]))]; words != 0;
         words &= words - 1) {
      if (word_at(i, kSecretKeyWords[static_cast<size_t>(std::countr_zero(words))])) return true;
    }
  }
  return false;
}

namespace redact_internal {

std::string RedactKeyValues(std::string_view text, RedactStats& stats) {
  return Rewrite(text, [&stats](std::string_view s, size_t i, std::string& out) -> size_t {
    if (!IsWordChar(s[i]) || IsWordChar(Before(s, i))) return 0;
    const size_t key_end = RunEnd(s, i, IsWordChar);
    const std::string_view key = s.substr(i, key_end - i);
    size_t used = MatchUrlPassword(s, i, key_end, out, stats);
    if (used == 0) {
      used = EqualsIgnoreCase(key, "bearer") ? MatchBearer(s, i, key_end, out, stats)
                                             : MatchKeyValue(s, i, key_end, out, stats);
    }
    if (used > 0) return used;
    out.append(key);
    return key.size();
  });
}

}  // namespace redact_internal
}  // namespace quell::core
