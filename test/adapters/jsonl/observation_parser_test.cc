#include "quell/adapters/jsonl/observation_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace quell::jsonl {
namespace {

class ObservationParserTest : public ::testing::Test {
 protected:
  core::Status Parse(const std::string& line) {
    buffer_ = line;
    buffer_.append(ObservationParser::kPadding, ' ');
    return parser_.Parse(std::string_view(buffer_.data(), line.size()), buffer_.size(), out_);
  }
  std::string Error(const std::string& line) {
    auto status = Parse(line);
    EXPECT_FALSE(status.ok()) << line;
    return status.ok() ? "" : status.error().message;
  }

  ObservationParser parser_;
  std::string buffer_;
  core::Observation out_;
};

TEST_F(ObservationParserTest, ParsesTheContractRecord) {
  ASSERT_TRUE(Parse(R"({"at":"2026-12-02T09:00:00Z","key":"t:s:g","unhealthy":true,)"
                    R"("condition":"errors","evidence":{"count": 3, "msg":"x"}})")
                  .ok());
  EXPECT_EQ(out_.key, "t:s:g");
  EXPECT_EQ(core::FormatRfc3339(out_.at), "2026-12-02T09:00:00Z");
  EXPECT_EQ(out_.health, core::Health::kUnhealthy);
  EXPECT_EQ(out_.condition, "errors");
  EXPECT_EQ(out_.evidence, R"({"count":3,"msg":"x"})");
}

TEST_F(ObservationParserTest, MapsUnhealthyToHealth) {
  ASSERT_TRUE(Parse(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":false})").ok());
  EXPECT_EQ(out_.health, core::Health::kHealthy);
  ASSERT_TRUE(Parse(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":null})").ok());
  EXPECT_EQ(out_.health, core::Health::kUnknown);
}

TEST_F(ObservationParserTest, KeysAreArbitraryUtf8) {
  ASSERT_TRUE(
      Parse(R"({"key":"t\"q\\b/s:ünï:日本\u00e9","at":"2026-12-02T09:00:00Z","unhealthy":true})")
          .ok());
  EXPECT_EQ(out_.key, "t\"q\\b/s:\xC3\xBCn\xC3\xAF:\xE6\x97\xA5\xE6\x9C\xAC\xC3\xA9");
}

TEST_F(ObservationParserTest, ClearsOptionalFieldsBetweenRecords) {
  ASSERT_TRUE(Parse(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":true,"condition":"c",)"
                    R"("evidence":{"a":1}})")
                  .ok());
  ASSERT_TRUE(Parse(R"({"at":"2026-12-02T09:01:00Z","key":"k","unhealthy":true})").ok());
  EXPECT_TRUE(out_.condition.empty());
  EXPECT_TRUE(out_.evidence.empty());
}

TEST_F(ObservationParserTest, IgnoresUnknownFields) {
  EXPECT_TRUE(
      Parse(R"({"at":"2026-12-02T09:00:00Z","extra":[1,{"x":2}],"key":"k","unhealthy":true})")
          .ok());
}

TEST_F(ObservationParserTest, ReadsLabelsSortedAndTheUpstreamCount) {
  ASSERT_TRUE(Parse(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":true,)"
                    R"("labels":{"tenant":"t1","stage":"answer"},"upstream_count":12})")
                  .ok());
  EXPECT_EQ(out_.labels, (core::Labels{{"stage", "answer"}, {"tenant", "t1"}}));
  EXPECT_EQ(out_.upstream_count, std::optional<uint64_t>(12));
  // The next record without them starts clean.
  ASSERT_TRUE(Parse(R"({"at":"2026-12-02T09:01:00Z","key":"k","unhealthy":true})").ok());
  EXPECT_TRUE(out_.labels.empty());
  EXPECT_FALSE(out_.upstream_count.has_value());
}

TEST_F(ObservationParserTest, ExplainsWhatIsWrongWithLabels) {
  EXPECT_EQ(Error(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":true,"labels":["t1"]})"),
            "field \"labels\" must be an object of strings");
  EXPECT_EQ(
      Error(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":true,"labels":{"tenant":7}})"),
      "field \"labels\": the value of \"tenant\" must be a string");
  EXPECT_EQ(Error(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":true,)"
                  R"("labels":{"a":"1","a":"2"}})"),
            "field \"labels\": duplicate label \"a\"");
  EXPECT_EQ(Error(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":true,)"
                  R"("upstream_count":-1})"),
            "field \"upstream_count\" must be a non-negative integer");
}

TEST_F(ObservationParserTest, ExplainsWhatIsWrong) {
  EXPECT_NE(Error(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":tru})").find("bad JSON"),
            std::string::npos);
  EXPECT_NE(Error(R"({"at":"2026-12-02T09:00:00Z","key":"k"})").find("missing field \"unhealthy\""),
            std::string::npos);
  EXPECT_NE(Error(R"({"key":"k","unhealthy":true})").find("missing field \"at\""),
            std::string::npos);
  EXPECT_NE(
      Error(R"({"at":"2026-12-02T09:00:00Z","unhealthy":true})").find("missing field \"key\""),
      std::string::npos);
  EXPECT_NE(Error(R"({"at":"2026-12-02T09:00:00Z","key":7,"unhealthy":true})")
                .find("field \"key\" must be a string"),
            std::string::npos);
  EXPECT_NE(Error(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":"yes"})")
                .find("field \"unhealthy\" must be true, false or null"),
            std::string::npos);
  EXPECT_NE(Error(R"({"at":"2026-12-02 9am","key":"k","unhealthy":true})").find("bad timestamp"),
            std::string::npos);
  EXPECT_NE(Error(R"({"at":1733130000,"key":"k","unhealthy":true})").find("field \"at\""),
            std::string::npos);
  EXPECT_NE(Error(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":true,"evidence":"x"})")
                .find("\"evidence\" must be an object"),
            std::string::npos);
  EXPECT_NE(Error(R"({"at":"2026-12-02T09:00:00Z","key":"","unhealthy":true})").find("empty"),
            std::string::npos);
  EXPECT_NE(Error(R"({"at":"2026-12-02T09:00:00Z","key":"a","key":"b","unhealthy":true})")
                .find("duplicate field \"key\""),
            std::string::npos);
  EXPECT_NE(Error(R"([1,2,3])").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(Error(R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":true} {})").find("JSON"),
            std::string::npos);
  EXPECT_FALSE(Parse("{\"at\":\"2026-12-02T09:00:00Z\",\"key\":\"\xFF\",\"unhealthy\":true}").ok());
}

// The issue's hostile input: a 10 MB key or evidence, deep nesting, a line dated 9999-12-31.
class LimitedParserTest : public ::testing::Test {
 protected:
  std::string Error(const std::string& line) {
    buffer_ = line;
    buffer_.append(ObservationParser::kPadding, ' ');
    auto status =
        parser_.Parse(std::string_view(buffer_.data(), line.size()), buffer_.size(), out_);
    EXPECT_FALSE(status.ok()) << line;
    return status.ok() ? "" : status.error().message;
  }
  static std::string Line(const std::string& key, const std::string& at,
                          const std::string& evidence = "{}") {
    return R"({"at":")" + at + R"(","key":")" + key + R"(","unhealthy":true,"evidence":)" +
           evidence + "}";
  }

  ObservationParser parser_{ObservationParserOptions{
      .limits = {}, .now = *core::ParseRfc3339("2026-12-02T09:00:00Z"), .redact = {}}};
  std::string buffer_;
  core::Observation out_;
};

TEST_F(LimitedParserTest, RefusesAKeyPastTheLimit) {
  EXPECT_EQ(Error(Line(std::string(513, 'k'), "2026-12-02T09:00:00Z")),
            "field \"key\" is 513 bytes, more than 512 (limits.key_bytes)");
}

TEST_F(LimitedParserTest, RefusesEvidencePastTheSizeLimit) {
  const std::string evidence = R"({"blob":")" + std::string(17000, 'x') + R"("})";
  EXPECT_EQ(Error(Line("k", "2026-12-02T09:00:00Z", evidence)),
            "field \"evidence\" is 17011 bytes, more than 16384 (limits.evidence_bytes)");
}

TEST_F(LimitedParserTest, RefusesEvidenceNestedPastTheDepthLimit) {
  std::string evidence;
  for (int i = 0; i < 17; ++i) evidence += R"({"a":)";
  evidence += "1" + std::string(17, '}');
  EXPECT_EQ(Error(Line("k", "2026-12-02T09:00:00Z", evidence)),
            "field \"evidence\" nests deeper than 16 levels (limits.evidence_depth)");
}

TEST_F(LimitedParserTest, RefusesALineFromTheFarFutureButAcceptsSkewWithinTheLimit) {
  EXPECT_EQ(Error(Line("k", "9999-12-31T00:00:00Z")),
            "field \"at\" is 9999-12-31T00:00:00Z, more than 5m0s ahead of now "
            "(limits.future_skew); a line from the future would make every later observation of "
            "its key stale");
  buffer_ = Line("k", "2026-12-02T09:04:59Z");
  buffer_.append(ObservationParser::kPadding, ' ');
  EXPECT_TRUE(
      parser_
          .Parse(std::string_view(buffer_.data(), buffer_.size() - ObservationParser::kPadding),
                 buffer_.size(), out_)
          .ok());
}

TEST_F(ObservationParserTest, RedactsEvidenceAsPollEvidenceIs) {
  ASSERT_TRUE(
      Parse(
          R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":true,"evidence":{)"
          R"("msg":"card 4111 1111 1111 1111 for alice@example.com","n":[1,{"x":null}],)"
          R"("auth":"Authorization: Bearer sk_live_51HqLyjWDarjtT1zdp7dcXYZ","password":"hunter2",)"
          R"("note":"password=hunter2 ok"}})")
          .ok());
  for (const char* planted : {"4111", "alice@example.com", "sk_live", "hunter2"}) {
    EXPECT_EQ(out_.evidence.find(planted), std::string::npos) << planted << " in " << out_.evidence;
  }
  EXPECT_NE(out_.evidence.find(R"("n":[1,{"x":null}])"), std::string::npos) << out_.evidence;
  EXPECT_NE(out_.evidence.find(R"("password":"[secret]")"), std::string::npos) << out_.evidence;
}

}  // namespace
}  // namespace quell::jsonl
