#include "quell/core/text/json_escape.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace quell::core {
namespace {

std::string Json(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

TEST(JsonEscapeTest, CopiesPlainTextAndEscapesBetweenRuns) {
  EXPECT_EQ(Json(""), "\"\"");
  EXPECT_EQ(Json("plain text ~\x7f"), "\"plain text ~\x7f\"");
  EXPECT_EQ(Json("a\"b\\c\nd\te\x01"
                 "f"),
            "\"a\\\"b\\\\c\\nd\\te\\u0001f\"");
  EXPECT_EQ(Json("\"\"end"), "\"\\\"\\\"end\"");
}

TEST(JsonEscapeTest, KeepsUtf8EscapesLineSeparatorsAndReplacesInvalidBytes) {
  EXPECT_EQ(Json("caf\xC3\xA9!"), "\"caf\xC3\xA9!\"");
  EXPECT_EQ(Json("a\xE2\x80\xA8"
                 "b\xE2\x80\xA9"),
            "\"a\\u2028b\\u2029\"");
  EXPECT_EQ(Json("x\xC3"
                 "y\xFF"),
            "\"x\xEF\xBF\xBDy\xEF\xBF\xBD\"");
}

// For writers matched byte for byte against one that leaves them alone (quell-sim's pages).
TEST(JsonEscapeTest, CanKeepLineSeparatorsVerbatim) {
  std::string out;
  AppendJsonString(out,
                   "a\xE2\x80\xA8"
                   "b\xE2\x80\xA9\b\xFF",
                   LineSeparators::kVerbatim);
  EXPECT_EQ(out,
            "\"a\xE2\x80\xA8"
            "b\xE2\x80\xA9\\b\xEF\xBF\xBD\"");
}

TEST(JsonEscapeTest, WithinCutsAtWholeCharacters) {
  std::string out;
  EXPECT_FALSE(AppendJsonStringWithin(out, "abcdefghij", 9));
  EXPECT_EQ(out, "\"abcd\xE2\x80\xA6\"");
  out.clear();
  EXPECT_TRUE(AppendJsonStringWithin(out, "abc", 9));
  EXPECT_EQ(out, "\"abc\"");
}

}  // namespace
}  // namespace quell::core
