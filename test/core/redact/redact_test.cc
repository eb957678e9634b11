#include "quell/core/redact/redact.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/text/utf8.h"

namespace quell::core {
namespace {

struct Case {
  std::string_view input;
  std::string_view want;
};

std::string R(std::string_view text) { return Redact(text, RedactOptions{}); }

void ExpectAll(const std::vector<Case>& cases) {
  for (const Case& c : cases) EXPECT_EQ(R(c.input), c.want) << "input: " << c.input;
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t length = Utf8SequenceLength(s, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

TEST(RedactTest, ReplacesEmailAddresses) {
  ExpectAll({
      {"contact jane.doe@example.com now", "contact [email] now"},
      {"jane+alerts@mail.example.co.uk", "[email]"},
      {"<first_last-2@sub.domain.io>", "<[email]>"},
      {"mail me at a.b@c.de.", "mail me at [email]."},
      {"user:john@example.org", "user:[email]"},
      {"(see .a@b.io)", "(see .[email])"},
      {"José@example.com", "[email]"},
      {"a@example.com.x", "[email].x"},
      {"a@mail.example.com-", "[email]-"},
  });
}

TEST(RedactTest, ReplacesPhoneNumbers) {
  ExpectAll({
      {"call +1 (415) 555-0100 now", "call [phone] now"},
      {"+44 20 7946 0958", "[phone]"},
      {"+44 (0)20 7946 0958", "[phone]"},
      {"+14155550100", "[phone]"},
      {"tel:+49-30-1234567", "tel:[phone]"},
      {"+33 1 23 45 67 89", "[phone]"},
      {"415-555-0100", "[phone]"},
      {"415.555.0100", "[phone]"},
      {"(415) 555-0100", "[phone]"},
      {"1-800-555-0100", "[phone]"},
      {"020 7946 0958", "[phone]"},
      {"030 1234567", "[phone]"},
      {"06-12345678", "[phone]"},
      {"01 23 45 67 89", "[phone]"},
      {"(11) 91234-5678", "[phone]"},
      {"phone:415-555-0100.", "phone:[phone]."},
      {"ref 2026 415-555-0100", "ref 2026 [phone]"},
      {"tel 0049 30 12345678", "tel [phone]"},
      {"mobile 07700 900123", "mobile [phone]"},
      {"+91 98765 43210", "[phone]"},
  });
}

TEST(RedactTest, ReplacesCardNumbers) {
  ExpectAll({
      {"card 4111 1111 1111 1111 declined", "card [card] declined"},
      {"4111-1111-1111-1111", "[card]"},
      {"5500005555555559", "[card]"},
      {"amex 3782 822463 10005", "amex [card]"},
      {"4111111111111111 123", "[card] 123"},
      {"pan=4012888888881881;", "pan=[card];"},
  });
}

TEST(RedactTest, ReplacesAuthorizationAndBearerValues) {
  ExpectAll({
      {"Authorization: Bearer abc.def", "Authorization: Bearer [secret]"},
      {"authorization=Basic dXNlcjpwYXNz done", "authorization=Basic [secret] done"},
      {"\"Authorization\": \"Bearer abc.def\"", "\"Authorization\": \"Bearer [secret]\""},
      {"sent Bearer eyJfoo.bar-baz_123", "sent Bearer [secret]"},
      {"Proxy-Authorization: Digest 1a2b3c", "Proxy-Authorization: Digest [secret]"},
      {"Cookie: sid=abc; theme=dark\nnext", "Cookie: [secret]\nnext"},
      {"Authorization: abc123", "Authorization: [secret]"},
  });
}

TEST(RedactTest, ReplacesValuesOfSecretLookingKeys) {
  ExpectAll({
      {"api_key=abcdef123", "api_key=[secret]"},
      {"\"password\":\"hunter2\"", "\"password\":\"[secret]\""},
      {"mysql://root:hunter2@localhost/db", "mysql://root:[secret]@localhost/db"},
      {"postgres://app:p%40ss:w0rd@db.example.com:5432/prod",
       "postgres://app:[secret]@db.example.com:5432/prod"},
      {"{\"password\": \"hun\\\"ter2\", \"user\": \"bob\"}",
       "{\"password\": \"[secret]\", \"user\": \"bob\"}"},
      {"password: hunter2 retrying", "password: [secret] retrying"},
      {"db_password = 's3 cret'", "db_password = '[secret]'"},
      {"?user=bob&access_token=xyz&page=2", "?user=bob&access_token=[secret]&page=2"},
      {"X-API-Key: k1", "X-API-Key: [secret]"},
      {"clientSecret=abc", "clientSecret=[secret]"},
      {"{\\\"token\\\":\\\"t0ps3cr3t\\\"}", "{\\\"token\\\":\\\"[secret]\\\"}"},
      {"session_id: 77", "session_id: [secret]"},
      {":private_key => \"pem\"", ":private_key => \"[secret]\""},
      {"auth=letmein", "auth=[secret]"},
  });
}

TEST(RedactTest, KeepsSecretKeysWithNothingToHide) {
  ExpectAll({
      {"\"token\": null", "\"token\": null"},
      {"password=", "password="},
      {"password_reset_required: true", "password_reset_required: true"},
      {"invalid password", "invalid password"},
  });
}

TEST(RedactTest, ReplacesKeysWithKnownPrefixes) {
  ExpectAll({
      {"key ifr_pk_proj_abc123 rejected", "key [secret] rejected"},
      {"sk-proj-4f9a8b7c6d", "[secret]"},
      {"sk_live_51Habc", "[secret]"},
      {"pk_live_abc123", "[secret]"},
      {"rk_live_abc123", "[secret]"},
      {"xoxb-1234-5678-abcd", "[secret]"},
      {"xoxp-1234-5678-abcd", "[secret]"},
      {"ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij", "[secret]"},
      {"gho_16C7e42F292c6912E7710c838347Ae178B4a", "[secret]"},
      {"github_pat_11ABCDEFG0123456789", "[secret]"},
      {"glpat-xxxxxxxx1234", "[secret]"},
      {"AIzaSyA-1234567890abcdefghijklmnopqrst", "[secret]"},
      {"(ifr_abcdef1)", "([secret])"},
  });
}

TEST(RedactTest, KeepsWordsThatMerelyStartLikeAPrefix) {
  ExpectAll({
      {"sk-learn", "sk-learn"},
      {"ifr_config", "ifr_config"},
      {"task-123456", "task-123456"},
      {"AKIA is the prefix", "AKIA is the prefix"},
  });
}

TEST(RedactTest, ReplacesExtraSecretPrefixes) {
  RedactOptions options;
  options.extra_secret_prefixes = {"acme_", "", "tok."};
  EXPECT_EQ(Redact("k=acme_9f8e7d6c x", options), "k=[secret] x");
  EXPECT_EQ(Redact("tok.ab12cd34", options), "[secret]");
  EXPECT_EQ(Redact("acme_widget", options), "acme_widget");
  EXPECT_EQ(R("acme_9f8e7d6c"), "acme_9f8e7d6c");
}

TEST(RedactTest, ReplacesJwtsAndAwsKeyIds) {
  ExpectAll({
      {"jwt "
       "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_"
       "XgL0n3I9PlFUP0THsR8U "
       "expired",
       "jwt [secret] expired"},
      {"eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", "[secret]"},
      {"AKIAIOSFODNN7EXAMPLE", "[secret]"},
      {"id=ASIAY34FZKBOKMUTVV7A,", "id=[secret],"},
  });
}

TEST(RedactTest, ReplacesLongRandomTokens) {
  ExpectAll({
      {"secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY end", "secret [secret] end"},
      {"t=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==;", "t=[secret];"},
      {"k9x2m4p7q1w8e5r3t6y0u2i4o6p8a1s3d5", "[secret]"},
      {"/reset/Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg/done", "/reset/[secret]/done"},
      {"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", "[secret]"},
  });
}

TEST(RedactTest, KeepsTextThatOnlyLooksSensitive) {
  const std::vector<std::string_view> kept = {
      "2026-12-02T09:00:00Z",
      "at 2026-12-02 09:00:00.123+01:00 the job failed",
      "02.12.2026 10:00",
      "550e8400-e29b-41d4-a716-446655440000",
      "123e4567-e89b-12d3-a456-426614174000",
      "12345678-1234-5678-1234-567812345678",
      "release 2026.06.03.1",
      "v1.2.3 and 10.4.17",
      "HTTP 503 Service Unavailable",
      "retry 3 times after 30 s",
      "order #12345",
      "4111111111111112",
      "1764662400000",
      "id 17646624000001234567",
      "at foo (src/app.js:10:5)",
      "at com.example.TokenService.refresh(TokenService.java:42)",
      "File \"/app/handlers/session.py\", line 218, in handle",
      "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
      "/api/v2/organizations/8f14e45fceea167a5a36dedd4bea2543/projects",
      "user@",
      "@Override",
      "lodash@4.17.21",
      "git@github",
      "The quick brown fox jumps over the lazy dog.",
      "pi is 3.14159265358979 roughly",
      "took 1234567.891 ms",
      "listen 10.20.30.40:8080",
      "192.168.100.200",
      "ports 8000-9000",
      "sizes 100 200 300 400",
      "1000 2000 3000",
      "ISBN 978-3-16-148410-0",
      "commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",
      "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      "test_redact_handles_100k_at_signs_in_linear_time",
      "container checkout-service-deployment-5f6d7c8b9a-x2k9p exceeded memory",
      "traceparent 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "Invalid phone number: 555-0100",
      "AbstractSingletonProxyFactoryBean2",
      "src/quell/core/redact_key_values_and_more.cc",
      "bearer tokens expire",
      "Invalid token",
      "count=42 level=error",
      "0x7ffd5fbff8a0",
      "x = 12,345,678",
  };
  for (std::string_view text : kept) EXPECT_EQ(R(text), text);
}

TEST(RedactTest, CutsLongTextAtAUtf8Boundary) {
  RedactOptions options;
  options.max_text = 5;
  // "aé漢" is 1 + 2 + 3 bytes; 5 bytes would end inside 漢.
  EXPECT_EQ(Redact("a\xC3\xA9\xE6\xBC\xA2z", options), "a\xC3\xA9\xE2\x80\xA6[cut 4 bytes]");
  options.max_text = 4;
  EXPECT_EQ(Redact("abc\xF0\x9F\x98\x80", options), "abc\xE2\x80\xA6[cut 4 bytes]");
  // Invalid bytes are single characters: the cut may fall anywhere among them.
  options.max_text = 2;
  EXPECT_EQ(Redact("\x80\x80\x80\x80", options), "\x80\x80\xE2\x80\xA6[cut 2 bytes]");
  for (size_t max = 1; max < 12; ++max) {
    options.max_text = max;
    const std::string out = Redact("\xC3\xA9\xE6\xBC\xA2\xF0\x9F\x98\x80\xC3\xA9", options);
    EXPECT_TRUE(IsValidUtf8(out)) << max;
  }
}

TEST(RedactTest, CutMarkerCountsTheBytesLeftOut) {
  RedactStats stats;
  const std::string out = Redact(std::string(1734, 'x'), RedactOptions{}, stats);
  EXPECT_EQ(out, std::string(500, 'x') + "\xE2\x80\xA6[cut 1234 bytes]");
  EXPECT_EQ(stats.cut_bytes, 1234U);
  EXPECT_EQ(R(std::string(500, 'x')), std::string(500, 'x'));
}

TEST(RedactTest, CutsAfterRedactingSoNoSecretIsHalfShown) {
  RedactOptions options;
  options.max_text = 20;
  const std::string out = Redact("some words, then jane.doe@example.com", options);
  EXPECT_EQ(out.find("jane"), std::string::npos) << out;
}

TEST(RedactTest, ZeroMaxTextKeepsEverything) {
  RedactOptions options;
  options.max_text = 0;
  EXPECT_EQ(Redact(std::string(5000, 'x'), options), std::string(5000, 'x'));
}

TEST(RedactTest, PassesInvalidUtf8Through) {
  const std::string text = "bad \xFF\xFE bytes \xC3 and \xE6\xBC then a@b.io";
  EXPECT_EQ(R(text), "bad \xFF\xFE bytes \xC3 and \xE6\xBC then [email]");
  EXPECT_EQ(R(std::string("\0a\0", 3)), std::string("\0a\0", 3));
}

TEST(RedactTest, CountsWhatItRemoved) {
  RedactStats stats;
  (void)Redact("a@b.io c@d.io 415-555-0100 4111 1111 1111 1111 password=x AKIAIOSFODNN7EXAMPLE",
               RedactOptions{}, stats);
  EXPECT_EQ(stats.emails, 2U);
  EXPECT_EQ(stats.phones, 1U);
  EXPECT_EQ(stats.cards, 1U);
  EXPECT_EQ(stats.secrets, 2U);
  EXPECT_EQ(stats.cut_bytes, 0U);
  (void)Redact("e@f.io", RedactOptions{}, stats);
  EXPECT_EQ(stats.emails, 3U);  // adds, so one value can count over many fields
}

TEST(RedactTest, RemovesEveryPlantedSecret) {
  const std::vector<std::string> planted = {
      "jane.doe+ops@example.com",
      "+1 (415) 555-0100",
      "020 7946 0958",
      "4111 1111 1111 1111",
      "5500005555555559",
      "hunter2",
      "abc.def",
      "ifr_pk_proj_abc123",
      "sk_live_51Habc",
      "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij",
      "xoxb-1234-5678-abcd",
      "AKIAIOSFODNN7EXAMPLE",
      "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_"
      "XgL0n3I9PlFUP0THsR8U",
      "s3ss10n-c00k13",
      "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg",
      "S3cr3tPassw0rd",
  };
  const std::string text =
      "User jane.doe+ops@example.com (+1 (415) 555-0100, office 020 7946 0958) paid with "
      "4111 1111 1111 1111 and 5500005555555559; login {\"password\":\"hunter2\"} sent "
      "Authorization: Bearer abc.def with keys ifr_pk_proj_abc123, sk_live_51Habc, "
      "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij, xoxb-1234-5678-abcd, AKIAIOSFODNN7EXAMPLE / "
      "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, session "
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
      "\nCookie: sid=s3ss10n-c00k13\nblob Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg at "
      "2026-12-02T09:00:00Z via postgres://admin:S3cr3tPassw0rd@db.internal/prod";
  RedactOptions options;
  options.max_text = 0;
  const std::string out = Redact(text, options);
  for (const std::string& secret : planted) {
    EXPECT_EQ(out.find(secret), std::string::npos) << secret << " in " << out;
  }
  EXPECT_NE(out.find("2026-12-02T09:00:00Z"), std::string::npos) << out;
}

std::string Repeat(std::string_view unit, size_t size) {
  std::string s;
  while (s.size() < size) s.append(unit);
  return s;
}

// Each of these inputs would take quadratic time in a scanner that retries every offset (or
// overflow a backtracking regex's stack); the ctest timeout catches that. Only the output is
// asserted, never the time.
TEST(RedactTest, HandlesAdversarialInput) {
  RedactOptions options;
  options.max_text = 0;
  constexpr size_t kSize = 100'000;
  for (std::string_view unit :
       {"@",  "1",    "a",        "a.",           "a@",      "@a.",       "1 ",
        "1-", "1.",   "(1",       "+1 ",          "/",       "a/",        "\"",
        "=",  "\\\"", "eyJ",      "eyJabcdefgh.", "Bearer ", "password=", "password=\"",
        "a1", "4",    "\xC3\xA9", "\xFF"}) {
    const std::string text = Repeat(unit, kSize);
    const std::string out = Redact(text, options);
    EXPECT_LE(out.size(), text.size() * 2) << unit;
  }
  for (std::string_view unit : {"@", "1", "1 ", "a.", "(1", "/", "\xFF"}) {
    EXPECT_EQ(Redact(Repeat(unit, kSize), options), Repeat(unit, kSize)) << unit;
  }
  RedactStats stats;
  const std::string cards = Repeat("4111 1111 1111 1111 ", kSize);
  (void)Redact(cards, options, stats);
  EXPECT_EQ(stats.cards, cards.size() / 20);
  stats = {};
  const std::string emails = Repeat("a@b.io ", kSize);
  (void)Redact(emails, options, stats);
  EXPECT_EQ(stats.emails, emails.size() / 7);
}

TEST(RedactTest, HandlesAMegabyteOfText) {
  constexpr std::string_view kSentence =
      "The job ran 3 times at 09:00 for jane@example.com and failed: HTTP 503 (id 4711). ";
  const std::string prose = Repeat(kSentence, 1 << 20);
  RedactOptions options;
  options.max_text = 0;
  RedactStats stats;
  const std::string out = Redact(prose, options, stats);
  EXPECT_EQ(out.find('@'), std::string::npos);
  EXPECT_EQ(stats.emails, prose.size() / kSentence.size());
  EXPECT_EQ(stats.phones + stats.cards + stats.secrets, 0U);
  const std::string cut = Redact(prose, RedactOptions{});
  EXPECT_TRUE(cut.ends_with(" bytes]")) << cut.substr(480);
  EXPECT_LT(cut.size(), 600U);
}

TEST(RedactTest, OutputIsValidUtf8WhenInputIs) {
  const std::vector<std::string_view> pieces = {"a",
                                                "Z",
                                                "7",
                                                " ",
                                                "-",
                                                ".",
                                                "@",
                                                "+",
                                                "(",
                                                ")",
                                                ":",
                                                "=",
                                                "/",
                                                "_",
                                                "\"",
                                                "\n",
                                                "\xC3\xA9",
                                                "\xE6\xBC\xA2",
                                                "\xF0\x9F\x98\x80",
                                                " jane@example.com ",
                                                "415-555-0100",
                                                "4111 1111 1111 1111",
                                                "password=",
                                                "Bearer ",
                                                "ifr_",
                                                "eyJhbGciOi",
                                                "AKIA"};
  std::mt19937 rng(20261202);
  std::uniform_int_distribution<size_t> pick(0, pieces.size() - 1);
  std::uniform_int_distribution<size_t> length(0, 80);
  RedactOptions options;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    for (size_t n = length(rng); n > 0; --n) text.append(pieces[pick(rng)]);
    options.max_text = length(rng) * 4;
    const std::string out = Redact(text, options);
    ASSERT_TRUE(IsValidUtf8(out)) << text;
    EXPECT_EQ(out.find("jane@example.com"), std::string::npos) << text;
  }
}

TEST(LooksSecretKeyTest, MatchesCredentialNamesInAnyCase) {
  for (std::string_view name :
       {"password", "DB_PASSWORD", "passwd", "client_secret", "token", "X-Auth-Token", "api_key",
        "apiKey", "API-KEY", "access_key", "AWS_SECRET_ACCESS_KEY", "private_key", "privateKey",
        "Authorization", "Set-Cookie", "JSESSIONID", "credentials", "auth"}) {
    EXPECT_TRUE(LooksSecretKey(name)) << name;
  }
  for (std::string_view name :
       {"user", "env", "level", "release", "author", "key", "path", "browser", "os.name", ""}) {
    EXPECT_FALSE(LooksSecretKey(name)) << name;
  }
}

// Who acked, as an outsider spelled it (issue 31): one line, blanks collapsed, an e-mail or a
// secret redacted, ids kept, at most kMaxActorName bytes and never a cut character.
TEST(RedactActorNameTest, ANameIsOneRedactedLineOfBoundedLength) {
  EXPECT_EQ(RedactActorName("  Amy\r\n\tMcGee  "), "Amy McGee");
  EXPECT_EQ(RedactActorName("U024BE7LH"), "U024BE7LH");
  EXPECT_EQ(RedactActorName("amy@example.com").find("amy@example.com"), std::string::npos);
  EXPECT_EQ(RedactActorName("\x7f\x01"), "");
  const std::string long_name = std::string(63, 'a') + "\xC3\xA9" + "tail";
  const std::string cut = RedactActorName(long_name);
  EXPECT_EQ(cut, std::string(63, 'a'));  // the two-byte character does not fit: left out whole
  EXPECT_LE(RedactActorName(std::string(500, 'x')).size(), kMaxActorName);
}

TEST(RedactActorNameTest, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  // An ack page's name field posted in Latin-1: PostgreSQL would refuse the raw bytes.
  EXPECT_EQ(RedactActorName("Jos\xE9 \xFF"), "Jos\xEF\xBF\xBD \xEF\xBF\xBD");
  EXPECT_EQ(RedactActorName("Jos\xC3\xA9"), "Jos\xC3\xA9");
}

}  // namespace
}  // namespace quell::core
