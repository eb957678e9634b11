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

}  // namespace
}  // namespace quell::jsonl
