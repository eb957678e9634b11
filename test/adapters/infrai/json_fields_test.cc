// The defensive readers of Infrai's undocumented fields, over parsed JSON.
#include "quell/adapters/infrai/json_fields.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

namespace quell::infrai {
namespace {

core::Result<core::WallTime> TimeOf(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element value;
  EXPECT_FALSE(parser.parse(json).get(value)) << json;
  return AsTime(value);
}

TEST(JsonFieldsTest, ATimeIsRfc3339OrUnixSecondsOrMilliseconds) {
  const core::WallTime at{std::chrono::seconds(1764666000)};
  EXPECT_EQ(*TimeOf(R"("2025-12-02T09:00:00Z")"), at);
  EXPECT_EQ(*TimeOf("1764666000"), at);
  EXPECT_EQ(*TimeOf("1764666000000"), at);
  EXPECT_EQ(*TimeOf("1764666000.5"), at + std::chrono::milliseconds(500));
}

// Found while checking what the infrai_answer fuzzer reached: a number past what WallTime's
// int64 microseconds hold was converted from double anyway (undefined behaviour; on x86 a time
// in the year -290308, which FormatRfc3339 cannot even write). Times past the year 9999, which
// RFC 3339 cannot write either, are refused with them.
TEST(JsonFieldsTest, ANumberPastTheYear9999IsRefused) {
  for (const char* json : {"1.7e25", "1e300", "9223372036854775807", "2.6e14"}) {
    auto at = TimeOf(json);
    EXPECT_FALSE(at.ok()) << json << " read as " << core::FormatRfc3339(*at);
    if (!at.ok()) {
      EXPECT_EQ(at.error().code, core::ErrorCode::kCorrupt) << json;
    }
  }
  auto late = TimeOf("2.5e14");  // milliseconds, in the year 9892
  ASSERT_TRUE(late.ok()) << late.error().message;
  EXPECT_EQ(core::FormatRfc3339(*late).substr(0, 5), "9892-");
}

}  // namespace
}  // namespace quell::infrai
