#include "quell/core/text/json_repair.h"

#include <gtest/gtest.h>

#include <string>

namespace json_repair_test {
namespace {

using quell::core::RepairJsonText;

TEST(RepairJsonTextTest, ValidJsonComesBackByteForByte) {
  const std::string text = R"({"title":"Café \ud83d\ude42 \"quoted \\ud800\" \u00e9","n":[1,2]})";
  EXPECT_EQ(RepairJsonText(text), text);
}

TEST(RepairJsonTextTest, BytesThatAreNotUtf8BecomeOneReplacementCharacterEach) {
  EXPECT_EQ(RepairJsonText("{\"t\":\"Caf\xE9 \xF0\x9F\x99\"}"),
            "{\"t\":\"Caf\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"}");
}

TEST(RepairJsonTextTest, LoneSurrogateEscapesBecomeTheReplacementEscape) {
  EXPECT_EQ(RepairJsonText(R"({"t":"cut \ud83d","u":"\uDE42 x","v":"\ud83d\u0041"})"),
            R"({"t":"cut \ufffd","u":"\ufffd x","v":"\ufffd\u0041"})");
}

TEST(RepairJsonTextTest, AnEscapedBackslashBeforeULeavesTheTextAlone) {
  // "\\ud800" is a backslash and the letters u, d, 8, 0, 0: no escape at all.
  const std::string text = R"({"t":"\\ud800","k\"ey":"\\"})";
  EXPECT_EQ(RepairJsonText(text), text);
}

TEST(RepairJsonTextTest, OutsideStringsNothingIsEscapeRepaired) {
  EXPECT_EQ(RepairJsonText(R"([\ud800])"), R"([\ud800])");
}

}  // namespace
}  // namespace json_repair_test
