// Redact skips a pass when the text cannot hold what the pass looks for. A skipped pass must
// never be one that would have changed the text: this compares Redact with every pass run in
// order, unconditionally, over hand-picked and random inputs built from the characters the
// passes react to.
#include "quell/core/redact/redact_prefilter.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/redact/redact.h"
#include "quell/core/redact/redact_passes.h"

namespace quell::core {
namespace {

namespace ri = redact_internal;

// The pipeline as it was before the prefilter: all six passes, no cut.
std::string AllPasses(std::string_view text, const std::vector<std::string>& extra,
                      RedactStats& stats) {
  std::string out = ri::RedactKeyValues(text, stats);
  out = ri::RedactKeyTokens(out, extra, stats);
  out = ri::RedactEmails(out, stats);
  out = ri::RedactCards(out, stats);
  out = ri::RedactPhones(out, stats);
  return ri::RedactRandomTokens(out, stats);
}

void ExpectSameAsAllPasses(std::string_view text, const std::vector<std::string>& extra = {}) {
  RedactOptions options;
  options.max_text = 0;
  options.extra_secret_prefixes = extra;
  RedactStats fast_stats;
  RedactStats full_stats;
  EXPECT_EQ(Redact(text, options, fast_stats), AllPasses(text, extra, full_stats))
      << "input: " << text;
  EXPECT_EQ(fast_stats.emails, full_stats.emails) << "input: " << text;
  EXPECT_EQ(fast_stats.phones, full_stats.phones) << "input: " << text;
  EXPECT_EQ(fast_stats.cards, full_stats.cards) << "input: " << text;
  EXPECT_EQ(fast_stats.secrets, full_stats.secrets) << "input: " << text;
}

TEST(RedactPrefilterTest, ShapeCountsWhatThePassesNeed) {
  const ri::TextShape plain = ri::ShapeOf("Generated error 12");
  EXPECT_FALSE(plain.key_value_cue);
  EXPECT_FALSE(plain.at_sign);
  EXPECT_EQ(plain.digits, 2U);
  EXPECT_EQ(plain.longest_token, 9U);  // "Generated"
  EXPECT_TRUE(ri::ShapeOf("a=b").key_value_cue);
  EXPECT_TRUE(ri::ShapeOf("see BeArEr x").key_value_cue);
  EXPECT_TRUE(ri::ShapeOf("x@y").at_sign);
  EXPECT_EQ(ri::ShapeOf("ab/c+d_e-f9 x").longest_token, 11U);
}

TEST(RedactPrefilterTest, KeyTokenCueNeedsAKnownStartAtAWordStart) {
  EXPECT_FALSE(ri::MayHoldKeyToken("Generated error 12", {}));
  EXPECT_FALSE(ri::MayHoldKeyToken("risk_level", {}));  // sk_ inside a word
  EXPECT_TRUE(ri::MayHoldKeyToken("key sk_live_abc", {}));
  EXPECT_TRUE(ri::MayHoldKeyToken("(eyJhbG", {}));
  EXPECT_TRUE(ri::MayHoldKeyToken("id AKIAXXXX", {}));
  for (std::string_view prefix : ri::kKeyPrefixes) {
    EXPECT_TRUE(ri::MayHoldKeyToken("key " + std::string(prefix) + "x", {})) << prefix;
  }
  EXPECT_FALSE(ri::MayHoldKeyToken("acme_7", {}));
  EXPECT_TRUE(ri::MayHoldKeyToken("acme_7", {"acme_"}));
  EXPECT_TRUE(ri::MayHoldKeyToken("x tok.123", {"", "tok."}));
}

TEST(RedactPrefilterTest, SkippingNeverChangesWhatIsRedacted) {
  const std::vector<std::string_view> cases = {
      "",
      "Generated error 12",
      "password=hunter2",
      "Authorization: Basic dXNlcjpwYXNz",
      "bearer abcdef123456",
      "Bearer tokens expire",
      "postgres://app:s3cret@db/x",
      "mail jane.doe@example.com now",
      "card 4111 1111 1111 1111 ok",
      "call +44 20 7946 0958",
      "call 415-555-0100",
      "ifr_pk_proj_abc123 and sk-abcdef1 and ghp_ABCDEFabcdef1234567890",
      "AKIAIOSFODNN7EXAMPLE",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc",
      "token Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUpL==",
      "/api/v2/Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUpL/x",
      "trace 4bf92f3577b34da6a3ce929d0e0e4736",
      "2026-12-02T09:00:00Z",
  };
  for (std::string_view c : cases) ExpectSameAsAllPasses(c);
  ExpectSameAsAllPasses("key acme_12345678 and tok.abcdef9", {"acme_", "", "tok."});
}

// Random text over an alphabet weighted towards what the passes react to, so that many inputs
// sit just on either side of each pass's threshold.
TEST(RedactPrefilterTest, RandomInputsMatchAllPasses) {
  std::vector<std::string_view> pieces = {
      "a",   "Z",    "7",   "0",    "1",    " ",    "-",       ".",      ":",
      "=",   "@",    "/",   "_",    "+",    "(",    ")",       "\"",     "'",
      "\n",  "x.io", "eyJ", "sk-",  "ifr_", "AKIA", "bearer",  "pwd",    "token",
      "://", "4111", "555", "\xC3", "\xA9", "com",  "Bearer ", "AbC9dE", "acme_"};
  pieces.insert(pieces.end(), ri::kKeyPrefixes.begin(), ri::kKeyPrefixes.end());
  std::mt19937_64 rng(20261202);
  std::uniform_int_distribution<size_t> piece(0, pieces.size() - 1);
  std::uniform_int_distribution<size_t> length(0, 40);
  for (int n = 0; n < 20000; ++n) {
    std::string text;
    for (size_t k = length(rng); k > 0; --k) text.append(pieces[piece(rng)]);
    ExpectSameAsAllPasses(
        text, n % 2 == 0 ? std::vector<std::string>{} : std::vector<std::string>{"acme_"});
    if (HasFailure()) break;
  }
}

// LooksSecretKey searches in place; the plain way is lower-casing a copy and searching it.
bool LooksSecretKeyByCopy(std::string_view name) {
  std::string lower;
  for (char c : name) {
    lower.push_back(c == '-' ? '_' : static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  }
  if (lower == "auth") return true;
  for (std::string_view word :
       {"password", "passwd", "secret", "token", "api_key", "apikey", "access_key", "accesskey",
        "private_key", "privatekey", "authorization", "cookie", "session", "credential"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

TEST(RedactPrefilterTest, LooksSecretKeyAgreesWithASearchOverALowerCaseCopy) {
  const std::vector<std::string_view> pieces = {
      "a",    "P", "pass", "word", "-",      "_",    "key",    "Api",     "TOK",   "en",
      "auth", "x", "sess", "ion",  "COOKIE", "cred", "ential", "private", "secre", "t"};
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<size_t> piece(0, pieces.size() - 1);
  std::uniform_int_distribution<size_t> length(0, 5);
  for (int n = 0; n < 20000; ++n) {
    std::string name;
    for (size_t k = length(rng); k > 0; --k) name.append(pieces[piece(rng)]);
    ASSERT_EQ(LooksSecretKey(name), LooksSecretKeyByCopy(name)) << "name: " << name;
  }
}

}  // namespace
}  // namespace quell::core
