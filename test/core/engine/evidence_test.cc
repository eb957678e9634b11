#include "quell/core/engine/evidence.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "quell/core/text/json_escape.h"

namespace quell::core {
namespace {

using nlohmann::json;

RedactOptions Unlimited() {
  RedactOptions options;
  options.max_text = 0;
  return options;
}

EvidenceInput SampleInput() {
  EvidenceInput in;
  in.fields = {{"title", "TypeError: cannot read 'id' of undefined"},
               {"level", "error"},
               {"count", "42"},
               {"last_seen", "2026-12-02T09:00:00Z"},
               {"message", "checkout failed for jane.doe@example.com"},
               {"exception", "TypeError\n  at foo (src/app.js:10:5)"},
               {"event_id", "9f86d081884c7d659a2feaa0c55ad015"}};
  in.tags = {{"env", "prod"}, {"release", "2026.06.03.1"}};
  return in;
}

TEST(EvidenceTest, BuildsOneCompactObjectInFieldOrder) {
  const std::string out = BuildEvidence(SampleInput(), RedactOptions{});
  EXPECT_EQ(out,
            "{\"title\":\"TypeError: cannot read 'id' of undefined\",\"level\":\"error\","
            "\"count\":\"42\",\"last_seen\":\"2026-12-02T09:00:00Z\","
            "\"message\":\"checkout failed for [email]\","
            "\"exception\":\"TypeError\\n  at foo (src/app.js:10:5)\","
            "\"event_id\":\"9f86d081884c7d659a2feaa0c55ad015\","
            "\"tags\":{\"env\":\"prod\",\"release\":\"2026.06.03.1\"}}");
}

TEST(EvidenceTest, LeavesOutTagsWhenThereAreNone) {
  EvidenceInput in;
  in.fields = {{"title", "boom"}};
  EXPECT_EQ(BuildEvidence(in, RedactOptions{}), "{\"title\":\"boom\"}");
  EXPECT_EQ(BuildEvidence(EvidenceInput{}, RedactOptions{}), "{}");
}

TEST(EvidenceTest, RedactsEveryValueAndCountsIt) {
  EvidenceInput in;
  in.fields = {{"title", "card 4111 1111 1111 1111 declined"},
               {"message", "call +44 20 7946 0958, key ifr_pk_proj_abc123"}};
  in.tags = {{"user", "bob@example.com"}, {"customer@example.com", "vip"}};
  RedactStats stats;
  const json j = json::parse(BuildEvidence(in, RedactOptions{}, EvidenceOptions{}, stats));
  EXPECT_EQ(j["title"], "card [card] declined");
  EXPECT_EQ(j["message"], "call [phone], key [secret]");
  EXPECT_EQ(j["tags"]["user"], "[email]");
  EXPECT_EQ(j["tags"]["[email]"], "vip");  // keys are kept, but not personal data in them
  EXPECT_EQ(stats.cards, 1U);
  EXPECT_EQ(stats.phones, 1U);
  EXPECT_EQ(stats.emails, 2U);
  EXPECT_EQ(stats.secrets, 1U);
}

TEST(EvidenceTest, DropsValuesOfSecretLookingNames) {
  EvidenceInput in;
  in.fields = {{"session_token", "plainword"}, {"title", "ok"}};
  in.tags = {
      {"api_key", "nothing-looks-secret"}, {"Cookie", "a=b"}, {"env", "prod"}, {"password", ""}};
  const json j = json::parse(BuildEvidence(in, RedactOptions{}));
  EXPECT_EQ(j["session_token"], "[secret]");
  EXPECT_EQ(j["tags"]["api_key"], "[secret]");
  EXPECT_EQ(j["tags"]["Cookie"], "[secret]");
  EXPECT_EQ(j["tags"]["env"], "prod");
  EXPECT_EQ(j["tags"]["password"], "");
}

TEST(EvidenceTest, KeepsTheFirstLinesOfATrace) {
  std::string trace = "Error: boom";
  for (int k = 0; k < 30; ++k) trace += "\n    at f" + std::to_string(k) + " (src/a.js:1:1)";
  EvidenceInput in;
  in.fields = {{"exception", trace}};
  EvidenceOptions options;
  options.max_lines = 3;
  const json j = json::parse(BuildEvidence(in, RedactOptions{}, options));
  EXPECT_EQ(
      j["exception"],
      "Error: boom\n    at f0 (src/a.js:1:1)\n    at f1 (src/a.js:1:1)\n\xE2\x80\xA6[+28 lines]");
  in.fields = {{"exception", "one\ntwo\nthree\n"}};
  EXPECT_EQ(json::parse(BuildEvidence(in, RedactOptions{}, options))["exception"],
            "one\ntwo\nthree\n");
  options.max_lines = 0;
  in.fields = {{"exception", trace}};
  EXPECT_EQ(json::parse(BuildEvidence(in, Unlimited(), options))["exception"], trace);
}

TEST(EvidenceTest, CutsLongValues) {
  EvidenceInput in;
  in.fields = {{"message", std::string(700, 'm')}};
  const json j = json::parse(BuildEvidence(in, RedactOptions{}));
  EXPECT_EQ(j["message"], std::string(500, 'm') + "\xE2\x80\xA6[cut 200 bytes]");
}

TEST(EvidenceTest, EscapesSoTheTextParsesBack) {
  std::string text = "quote \" backslash \\ slash / tab \t nl \n cr \r bell \x07 nul ";
  text.push_back('\0');
  text += " del \x7F e\xC3\xA9 \xE6\xBC\xA2 \xF0\x9F\x98\x80 ls \xE2\x80\xA8 ps \xE2\x80\xA9";
  EvidenceInput in;
  in.fields = {{"text", text}, {"key \"with\"\nescapes", "v"}};
  const std::string out = BuildEvidence(in, Unlimited());
  EXPECT_NE(out.find("\\u0007"), std::string::npos) << out;
  EXPECT_NE(out.find("\\u0000"), std::string::npos) << out;
  EXPECT_NE(out.find("\\u2028"), std::string::npos) << out;
  EXPECT_EQ(out.find('\n'), std::string::npos) << out;
  const json j = json::parse(out);
  EXPECT_EQ(j["text"], text);
  EXPECT_EQ(j["key \"with\"\nescapes"], "v");
}

TEST(EvidenceTest, ReplacesInvalidUtf8SoTheJsonIsValid) {
  EvidenceInput in;
  in.fields = {{"text",
                "a\xFF"
                "b\xC3"
                "c\xED\xA0\x80"
                "d\xF0\x9F\x98"}};
  const json j = json::parse(BuildEvidence(in, RedactOptions{}));
  EXPECT_EQ(j["text"],
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD"
            "c\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
            "d\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(EvidenceTest, DropsTrailingFieldsPastTheSizeCap) {
  EvidenceInput in;
  for (int k = 0; k < 30; ++k)
    in.fields.emplace_back("f" + std::to_string(k), std::string(90, 'v'));
  in.tags = {{"env", "prod"}};
  const std::string out = BuildEvidence(in, RedactOptions{});
  EXPECT_LE(out.size(), 2048U);
  const json j = json::parse(out);
  EXPECT_EQ(j["truncated"], true);
  EXPECT_FALSE(j.contains("tags"));
  EXPECT_FALSE(j.contains("f29"));
  EXPECT_EQ(j["f0"], std::string(90, 'v'));
  // Fields are kept in order, so whatever survives is a prefix of the input.
  size_t kept = 0;
  while (j.contains("f" + std::to_string(kept))) ++kept;
  EXPECT_EQ(j.size(), kept + 1);
  EXPECT_GE(kept, 20U);
}

TEST(EvidenceTest, ShortensTheFieldThatCrossesTheCap) {
  EvidenceInput in;
  in.fields = {{"title", std::string(300, 't')}, {"message", std::string(400, 'm')}};
  EvidenceOptions options;
  options.max_bytes = 512;
  const std::string out = BuildEvidence(in, RedactOptions{}, options);
  EXPECT_LE(out.size(), 512U);
  const json j = json::parse(out);
  EXPECT_EQ(j["title"], std::string(300, 't'));
  const std::string message = j["message"];
  EXPECT_TRUE(message.ends_with("\xE2\x80\xA6")) << message;
  EXPECT_GT(message.size(), 100U);
  EXPECT_EQ(j["truncated"], true);
}

TEST(EvidenceTest, DropsTagsThatDoNotFit) {
  EvidenceInput in;
  in.fields = {{"title", "t"}};
  for (int k = 0; k < 200; ++k) in.tags.emplace_back("tag" + std::to_string(k), "value");
  const std::string out = BuildEvidence(in, RedactOptions{});
  EXPECT_LE(out.size(), 2048U);
  const json j = json::parse(out);
  EXPECT_EQ(j["truncated"], true);
  EXPECT_EQ(j["tags"]["tag0"], "value");
  EXPECT_FALSE(j["tags"].contains("tag199"));
}

TEST(EvidenceTest, NeverPassesTheCapAndAlwaysParses) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<size_t> length(0, 600);
  std::uniform_int_distribution<size_t> count(0, 12);
  auto random_text = [&] {
    std::string s(length(rng), ' ');
    for (char& c : s) c = static_cast<char>(byte(rng));
    return s;
  };
  for (int round = 0; round < 300; ++round) {
    EvidenceInput in;
    for (size_t n = count(rng); n > 0; --n) in.fields.emplace_back(random_text(), random_text());
    for (size_t n = count(rng); n > 0; --n) in.tags.emplace_back(random_text(), random_text());
    EvidenceOptions options;
    options.max_bytes = 64 + static_cast<size_t>(round) * 7;
    const std::string out = BuildEvidence(in, RedactOptions{}, options);
    ASSERT_LE(out.size(), options.max_bytes);
    ASSERT_TRUE(json::accept(out)) << out;
  }
}

TEST(EvidenceTest, SkipsReservedFieldNames) {
  EvidenceInput in;
  in.fields = {{"truncated", "yes"}, {"tags", "x"}, {"title", "t"}};
  EXPECT_EQ(BuildEvidence(in, RedactOptions{}), "{\"title\":\"t\"}");
}

TEST(JsonEscapeTest, ShortensToWholeCharacters) {
  std::string out;
  EXPECT_TRUE(AppendJsonStringWithin(out, "abc", 5));
  EXPECT_EQ(out, "\"abc\"");
  out.clear();
  EXPECT_FALSE(AppendJsonStringWithin(out, "\xE6\xBC\xA2\xE6\xBC\xA2\xE6\xBC\xA2", 10));
  EXPECT_EQ(out, "\"\xE6\xBC\xA2\xE2\x80\xA6\"");
  out.clear();
  EXPECT_FALSE(AppendJsonStringWithin(out, "a\nbcdef", 7));
  EXPECT_EQ(out, "\"a\xE2\x80\xA6\"");
}

}  // namespace
}  // namespace quell::core
