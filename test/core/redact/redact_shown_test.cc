// What is shown or sent is redacted the same way everywhere: URLs (a query parameter's value
// shown only by name), upstream error text, and labels.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/redact/redact.h"
#include "quell/core/redact/redact_label.h"
#include "quell/core/redact/redact_url.h"

namespace quell::core {
namespace {

TEST(RedactUrlTest, ShowsEachQueryParameterByNameOnly) {
  EXPECT_EQ(RedactUrl("https://hooks.example/p?apikey=SECRET"),
            "https://hooks.example/p?apikey=[redacted]");
  EXPECT_EQ(RedactUrl("http://127.0.0.1:4100/v1/errors/groups?limit=5&cursor=abc"),
            "http://127.0.0.1:4100/v1/errors/groups?limit=[redacted]&cursor=[redacted]");
  // An empty value hides nothing; a parameter without a name is all value.
  EXPECT_EQ(RedactUrl("https://h/p?flag=&TOKENONLY&&x=1"),
            "https://h/p?flag=&[redacted]&&x=[redacted]");
  EXPECT_EQ(RedactUrl("https://h/p?"), "https://h/p?");
  EXPECT_EQ(RedactUrl("https://h/p#access_token=abc"), "https://h/p#[redacted]");
  EXPECT_EQ(RedactUrl("https://h/p?a=1#f"), "https://h/p?a=[redacted]#[redacted]");
}

TEST(RedactUrlTest, DropsTheUserinfoAndKeepsWhereItPointed) {
  EXPECT_EQ(RedactUrl("https://user:pw@api.example/x@y"), "https://api.example/x@y");
  EXPECT_EQ(RedactUrl("https://a:b@c@host"), "https://host");
  EXPECT_EQ(RedactUrl("https://glpat-abc123@git.example:8443/a/b"), "https://git.example:8443/a/b");
  EXPECT_EQ(RedactUrl("https://host/path/only"), "https://host/path/only");
  EXPECT_EQ(RedactUrl("not a url"), "not a url");
  EXPECT_EQ(RedactUrl("sqlite:x.db?mode=ro"), "sqlite:x.db?mode=[redacted]");
  EXPECT_EQ(RedactUrl(""), "");
}

TEST(RedactUrlsInTest, RedactsEveryUrlInTextAndLeavesTheRest) {
  EXPECT_EQ(RedactUrlsIn("POST https://h.example/hook?apikey=SECRET: Failed to connect"),
            "POST https://h.example/hook?apikey=[redacted]: Failed to connect");
  EXPECT_EQ(RedactUrlsIn("see (https://a.example/x?k=1), or \"http://u:p@b.example/?t=2\"."),
            "see (https://a.example/x?k=[redacted]), or \"http://b.example/?t=[redacted]\".");
  EXPECT_EQ(RedactUrlsIn("no url: just text?a=b"), "no url: just text?a=b");
  EXPECT_EQ(RedactUrlsIn("://x?y=1 and 1://z?q=1"), "://x?y=1 and 1://z?q=1");
  EXPECT_EQ(RedactUrlsIn("a https://h/p?x=1\nb http://h/q?y=2"),
            "a https://h/p?x=[redacted]\nb http://h/q?y=[redacted]");
}

// The upstream error: an Infrai stand-in answered with an API key and an e-mail.
TEST(RedactErrorTextTest, RemovesKeysPersonalDataAndQueryValues) {
  const std::string text = RedactErrorText(
      "GET http://127.0.0.1:4100/v1/errors/groups?project=p1: HTTP 401 UNAUTHORIZED: key "
      "ifr_pk_live_9f8e7d6c5b4a3210 of ops@acme.example (call +1 415 555 0134) was revoked");
  EXPECT_EQ(text.find("9f8e7d6c5b4a3210"), std::string::npos) << text;
  EXPECT_EQ(text.find("ops@acme.example"), std::string::npos) << text;
  EXPECT_EQ(text.find("555 0134"), std::string::npos) << text;
  EXPECT_EQ(text.find("p1"), std::string::npos) << text;
  EXPECT_NE(text.find("GET http://127.0.0.1:4100/v1/errors/groups?project=[redacted]: HTTP 401"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("was revoked"), std::string::npos) << text;
}

TEST(RedactErrorTextTest, RedactingTwiceIsRedactingOnce) {
  for (std::string_view input :
       {"POST https://h/p?apikey=SECRET&n=1: HTTP 500: password=hunter2 for bob@x.example",
        "api_key=[redacted] token: [secret] mail [email]", "Authorization: Bearer abcdef123456"}) {
    const std::string once = RedactErrorText(input);
    EXPECT_EQ(RedactErrorText(once), once) << input;
  }
  EXPECT_EQ(RedactErrorText("POST https://h/p?apikey=SECRET: refused"),
            "POST https://h/p?apikey=[redacted]: refused");
}

TEST(RedactErrorTextTest, CutsLongTextOnACharacterBoundary) {
  const std::string text = RedactErrorText(std::string(5000, 'x'));
  EXPECT_LT(text.size(), kMaxErrorText + 40);
  EXPECT_NE(text.find("[cut 3000 bytes]"), std::string::npos) << text.substr(1990);
  EXPECT_EQ(RedactErrorText(std::string(5000, 'x'), 0).size(), 5000U);
}

// The pushed labels: password=..., an e-mail and a phone number were stored, shown and
// sent as pushed.
TEST(RedactLabelsTest, CredentialsAndPersonalDataNeverStayInALabel) {
  std::vector<std::pair<std::string, std::string>> labels = {
      {"alertname", "HighErrorRate"},
      {"db_password", "hunter2"},
      {"instance", "10.0.0.7:9100"},
      {"owner", "alice@example.com"},
      {"oncall_phone", "+1 415 555 0134"},
      {"dsn", "postgresql://app:s3cret@db.internal/app"},
      {"note", "rotated key ghp_Abc123Def456Ghi789Jkl0"},
      {"pod", "checkout-api-5f6d7c8b9a-x2k9p"},
      {"user_id", "user_2NNhZ4aBcdEfGhIjKlMnOpQrStU"},
  };
  RedactLabels(labels, RedactOptions{});
  const std::vector<std::pair<std::string, std::string>> want = {
      {"alertname", "HighErrorRate"},
      {"db_password", "[secret]"},
      {"instance", "10.0.0.7:9100"},
      // The pseudonym key templates give (sha256("alice@example.com")).
      {"owner", "pii-ff8d9819fc0e"},
      {"oncall_phone", RedactLabelValue("x", "+1 415 555 0134", RedactOptions{})},
      {"dsn", "postgresql://app:[secret]@db.internal/app"},
      {"note", "rotated key [secret]"},
      // Ids stay: a long random-looking token in a label names something.
      {"pod", "checkout-api-5f6d7c8b9a-x2k9p"},
      {"user_id", "user_2NNhZ4aBcdEfGhIjKlMnOpQrStU"},
  };
  EXPECT_EQ(labels, want);
  EXPECT_TRUE(IsPseudonym(labels[4].second)) << labels[4].second;
  EXPECT_NE(labels[4].second, labels[3].second);
}

TEST(RedactLabelsTest, RedactingTwiceIsRedactingOnceSoKeysStayAsTheyWere) {
  const RedactOptions options;
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"owner", "alice@example.com"},
                                                        {"tenant", "+44 20 7946 0958"},
                                                        {"password", "x"},
                                                        {"dsn", "postgresql://app:s3cret@db/app"},
                                                        {"team", "payments"}}) {
    const std::string once = RedactLabelValue(name, value, options);
    EXPECT_EQ(RedactLabelValue(name, once, options), once) << name << "=" << value;
  }
  // A pseudonym with many digits must not read as a phone number and be hashed again.
  const std::string digits = "pii-123456789012";
  ASSERT_TRUE(IsPseudonym(digits));
  EXPECT_EQ(RedactLabelValue("tenant", digits, options), digits);
  EXPECT_EQ(RedactLabelValue("password", "", options), "");
}

TEST(RedactLabelsTest, ExtraSecretPrefixesApply) {
  RedactOptions options;
  options.extra_secret_prefixes = {"acme_"};
  EXPECT_EQ(RedactLabelValue("note", "acme_9f8e7d6c5b4a", options), "[secret]");
  EXPECT_EQ(RedactLabelValue("note", "acme_9f8e7d6c5b4a", RedactOptions{}), "acme_9f8e7d6c5b4a");
}

}  // namespace
}  // namespace quell::core
