#include "quell/adapters/store_common/incident_codec.h"

#include <gtest/gtest.h>

namespace quell::store {
namespace {

TEST(IncidentCodecTest, EvidenceRoundTrips) {
  const std::vector<std::string> evidence = {R"({"a":1,"b":"x,y]}"})", "[1,[2,3]]", R"("s\",")",
                                             "null"};
  auto decoded = DecodeEvidence(EncodeEvidence(evidence));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, evidence);
  EXPECT_TRUE(DecodeEvidence("[]")->empty());
}

TEST(IncidentCodecTest, RejectsEvidenceThatIsNotAnArray) {
  EXPECT_EQ(DecodeEvidence("{").error().code, core::ErrorCode::kCorrupt);
  EXPECT_EQ(DecodeEvidence("{}").error().code, core::ErrorCode::kCorrupt);
  EXPECT_EQ(DecodeEvidence("[{]").error().code, core::ErrorCode::kCorrupt);
  EXPECT_EQ(DecodeEvidence(R"(["unterminated])").error().code, core::ErrorCode::kCorrupt);
  EXPECT_EQ(DecodeEvidence("[1,,2]").error().code, core::ErrorCode::kCorrupt);
  EXPECT_EQ(DecodeEvidence("[1,]").error().code, core::ErrorCode::kCorrupt);
}

TEST(IncidentCodecTest, LabelsRoundTripThroughAJsonObject) {
  const core::Labels labels = {
      {"a\"b", "c\\d"}, {"stage", "line\nbreak\ttab\x01 \u2028 日本"}, {"tenant", ""}};
  const std::string text = EncodeLabels(labels);
  EXPECT_EQ(EncodeLabels({}), "{}");
  EXPECT_EQ(EncodeLabels({{"tenant", "t1"}}), R"({"tenant":"t1"})");
  auto back = DecodeLabels(text);
  ASSERT_TRUE(back.ok()) << back.error().message << " in " << text;
  EXPECT_EQ(*back, labels);
  // Any JSON object of strings reads back sorted, escapes and spaces included.
  auto loose = DecodeLabels(R"( { "z" : "\u00e9\ud83d\ude00" , "a":"\/" } )");
  ASSERT_TRUE(loose.ok());
  EXPECT_EQ(*loose, (core::Labels{{"a", "/"}, {"z", "é😀"}}));
  EXPECT_EQ(DecodeLabels("{}")->size(), 0u);
}

TEST(IncidentCodecTest, RejectsLabelsThatAreNotAnObjectOfStrings) {
  for (const char* bad : {"", "[]", "{", R"({"a":1})", R"({"a":"b",})", R"({"a":"b"} x)",
                          R"({"a" "b"})", R"({"a":"\q"})"}) {
    auto decoded = DecodeLabels(bad);
    ASSERT_FALSE(decoded.ok()) << bad;
    EXPECT_EQ(decoded.error().code, core::ErrorCode::kCorrupt);
  }
}

TEST(IncidentCodecTest, TimesAreMicrosecondsSinceTheEpoch) {
  const auto t = *core::ParseRfc3339("1970-01-01T00:00:01.000002Z");
  EXPECT_EQ(ToMicros(t), 1'000'002);
  EXPECT_EQ(FromMicros(1'000'002), t);
}

TEST(IncidentCodecTest, ParsesOnlyKnownStatuses) {
  EXPECT_EQ(*ParseIncidentStatus("open"), core::IncidentStatus::kOpen);
  EXPECT_EQ(ParseIncidentStatus("closed").error().code, core::ErrorCode::kCorrupt);
}

}  // namespace
}  // namespace quell::store
