#include "quell/core/text/time.h"

#include <gtest/gtest.h>

namespace quell::core {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

const WallTime kDay = WallTime{hours{24 * 20789}};  // 2026-12-02T00:00:00Z

TEST(Rfc3339Test, ParsesUtcAndOffsets) {
  EXPECT_EQ(*ParseRfc3339("2026-12-02T09:00:00Z"), kDay + hours{9});
  EXPECT_EQ(*ParseRfc3339("2026-12-02T10:30:00+01:30"), kDay + hours{9});
  EXPECT_EQ(*ParseRfc3339("2026-12-02T08:00:00-01:00"), kDay + hours{9});
  EXPECT_EQ(*ParseRfc3339("2026-12-02t09:00:00z"), kDay + hours{9});
  EXPECT_EQ(*ParseRfc3339("2026-12-02 09:00:00Z"), kDay + hours{9});
}

TEST(Rfc3339Test, ParsesFractionsTruncatingPastMicroseconds) {
  EXPECT_EQ(*ParseRfc3339("2026-12-02T00:00:00.5Z"), kDay + std::chrono::milliseconds{500});
  EXPECT_EQ(*ParseRfc3339("2026-12-02T00:00:00.123456789Z"), kDay + Duration{123456});
}

TEST(Rfc3339Test, RejectsWhatIsNotATimestamp) {
  for (const char* bad :
       {"", "2026-12-02", "2026-12-02T09:00:00", "2026-13-02T09:00:00Z", "2026-02-30T09:00:00Z",
        "2026-12-02T24:00:00Z", "2026-12-02T09:60:00Z", "2026-12-02T09:00:60Z",
        "2026-12-02T09:00:00.Z", "2026-12-02T09:00:00Zjunk", "2026-12-02T09:00:00+0100",
        "yesterday", "2026-12-02X09:00:00Z"}) {
    auto parsed = ParseRfc3339(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(parsed.error().message.find("bad timestamp"), std::string::npos);
  }
}

// Found by the fuzzers' check that every time read from outside writes back as it was read:
// an offset moved 0000-01-01 into the year -1 and 9999-12-31 into 10000, which FormatRfc3339
// wrote as "(/*,-12-31..." and "0000-01-01...". RFC 3339 has four-digit years only.
TEST(Rfc3339Test, RejectsAnOffsetThatLeavesTheYears0000To9999) {
  for (const char* text :
       {"0000-01-01T00:00:00+00:01", "9999-12-31T23:59:59-00:01", "9999-12-31T23:30:00.5-23:59"}) {
    auto at = ParseRfc3339(text);
    EXPECT_FALSE(at.ok()) << text << " read as " << FormatRfc3339(*at);
  }
  for (const char* text : {"0000-01-01T00:00:00Z", "0000-01-01T00:01:00+00:01",
                           "9999-12-31T23:59:59.999999Z", "9999-12-31T23:58:59-00:01"}) {
    auto at = ParseRfc3339(text);
    ASSERT_TRUE(at.ok()) << text << ": " << at.error().message;
    EXPECT_EQ(*ParseRfc3339(FormatRfc3339(*at)), *at) << text;
  }
}

TEST(Rfc3339Test, AcceptsLeapDay) { EXPECT_TRUE(ParseRfc3339("2028-02-29T00:00:00Z").ok()); }

TEST(Rfc3339Test, FormatsCanonicalUtc) {
  EXPECT_EQ(FormatRfc3339(kDay + hours{9}), "2026-12-02T09:00:00Z");
  EXPECT_EQ(FormatRfc3339(kDay + std::chrono::milliseconds{250}), "2026-12-02T00:00:00.25Z");
  EXPECT_EQ(FormatRfc3339(kDay + Duration{1}), "2026-12-02T00:00:00.000001Z");
  EXPECT_EQ(FormatRfc3339(WallTime{}), "1970-01-01T00:00:00Z");
}

TEST(Rfc3339Test, RoundTrips) {
  for (const char* text :
       {"2026-12-02T09:00:00Z", "1999-12-31T23:59:59.999999Z", "2000-02-29T12:00:00.1Z"}) {
    EXPECT_EQ(FormatRfc3339(*ParseRfc3339(text)), text);
  }
}

TEST(DurationTest, ParsesGoStyle) {
  EXPECT_EQ(*ParseDuration("90s"), seconds{90});
  EXPECT_EQ(*ParseDuration("10m"), minutes{10});
  EXPECT_EQ(*ParseDuration("1h30m"), minutes{90});
  EXPECT_EQ(*ParseDuration("1.5h"), minutes{90});
  EXPECT_EQ(*ParseDuration("250ms"), std::chrono::milliseconds{250});
  EXPECT_EQ(*ParseDuration("2us"), Duration{2});
  EXPECT_EQ(*ParseDuration("1h0m30s"), seconds{3630});
  EXPECT_EQ(*ParseDuration("0"), Duration{0});
  EXPECT_EQ(*ParseDuration("+5s"), seconds{5});
}

TEST(DurationTest, RejectsBadDurations) {
  for (const char* bad : {"", "10", "-5s", "5x", "m", "1h30", ".s", "1d", "ten minutes"}) {
    auto parsed = ParseDuration(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.error().message.find("bad duration"), std::string::npos);
  }
}

TEST(DurationTest, FormatsLikeGo) {
  EXPECT_EQ(FormatDuration(Duration{0}), "0s");
  EXPECT_EQ(FormatDuration(minutes{90}), "1h30m0s");
  EXPECT_EQ(FormatDuration(seconds{90}), "1m30s");
  EXPECT_EQ(FormatDuration(std::chrono::milliseconds{1500}), "1.5s");
  EXPECT_EQ(FormatDuration(std::chrono::milliseconds{250}), "250ms");
}

}  // namespace
}  // namespace quell::core
