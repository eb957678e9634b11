#include "quell/core/delivery/message_limits.h"

#include <gtest/gtest.h>

#include <string>

namespace quell::core {
namespace {

std::string Repeat(std::string_view unit, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out.append(unit);
  return out;
}

TEST(SmsCountTest, PlainAsciiIsGsm7With160InOneSegment) {
  EXPECT_EQ(CountSms("").segments, 0U);
  const SmsCount one = CountSms(Repeat("a", 160));
  EXPECT_EQ(one.encoding, SmsEncoding::kGsm7);
  EXPECT_EQ(one.units, 160U);
  EXPECT_EQ(one.segments, 1U);
  EXPECT_EQ(CountSms(Repeat("a", 161)).segments, 2U);
  EXPECT_EQ(CountSms(Repeat("a", 306)).segments, 2U);  // 2 x 153
  EXPECT_EQ(CountSms(Repeat("a", 307)).segments, 3U);
}

TEST(SmsCountTest, ExtensionCharactersTakeTwoSeptets) {
  const SmsCount count = CountSms("{}[]~^|\\\u20ac");
  EXPECT_EQ(count.encoding, SmsEncoding::kGsm7);
  EXPECT_EQ(count.units, 18U);
  EXPECT_EQ(CountSms(Repeat("\u20ac", 80)).segments, 1U);  // 160 septets
  EXPECT_EQ(CountSms(Repeat("\u20ac", 81)).segments, 2U);
}

TEST(SmsCountTest, GsmAccentsStayGsm7) {
  EXPECT_EQ(CountSms("\u00e9t\u00e9 \u00e0 M\u00fcnchen \u00a3 \u0394").encoding,
            SmsEncoding::kGsm7);
}

TEST(SmsCountTest, OneCharacterOutsideGsm7MakesItUcs2) {
  const SmsCount count = CountSms(Repeat("a", 69) + "\u00ea");  // ê is not GSM-7
  EXPECT_EQ(count.encoding, SmsEncoding::kUcs2);
  EXPECT_EQ(count.units, 70U);
  EXPECT_EQ(count.segments, 1U);
  EXPECT_EQ(CountSms(Repeat("a", 70) + "`").segments, 2U);  // backtick is not GSM-7 either
  EXPECT_EQ(CountSms(Repeat("\u4e2d", 134)).segments, 2U);  // 2 x 67
  EXPECT_EQ(CountSms(Repeat("\u4e2d", 135)).segments, 3U);
}

TEST(SmsCountTest, AstralCharactersTakeTwoUnitsAndAreNotSplitAcrossParts) {
  EXPECT_EQ(CountSms("\U0001F525").units, 2U);
  // 66 units, then a surrogate pair that does not fit in the first part's last unit.
  const SmsCount count = CountSms(Repeat("\u4e2d", 66) + "\U0001F525" + Repeat("\u4e2d", 66));
  EXPECT_EQ(count.units, 134U);
  EXPECT_EQ(count.segments, 3U);
}

TEST(FitSmsTest, LeavesAFittingTextAlone) {
  const std::string text = Repeat("a", 306);
  EXPECT_EQ(FitSms(text, 2), text);
}

TEST(FitSmsTest, CutsGsm7WithThreeDotsToExactlyTheLimit) {
  const std::string cut = FitSms(Repeat("a", 500), 2);
  EXPECT_EQ(cut, Repeat("a", 303) + "...");
  EXPECT_EQ(CountSms(cut).segments, 2U);
  EXPECT_EQ(CountSms(cut).encoding, SmsEncoding::kGsm7);
  EXPECT_EQ(FitSms(Repeat("a", 500), 1), Repeat("a", 157) + "...");
}

TEST(FitSmsTest, CutsUcs2WithAnEllipsisAtACharacterBoundary) {
  const std::string cut = FitSms(Repeat("\u00ea", 200), 2);
  EXPECT_EQ(cut, Repeat("\u00ea", 133) + "\u2026");
  EXPECT_EQ(CountSms(cut).segments, 2U);
  const std::string astral = FitSms(Repeat("\U0001F525", 100), 2);
  EXPECT_EQ(CountSms(astral).segments, 2U);
  EXPECT_EQ(astral.substr(astral.size() - 3), "\u2026");
  EXPECT_EQ((astral.size() - 3) % 4, 0U);  // whole 4-byte sequences only
}

TEST(FitSmsTest, HonoursTheConfiguredSegments) {
  EXPECT_EQ(CountSms(FitSms(Repeat("word ", 400), 4)).segments, 4U);
}

TEST(CutToCharsTest, CountsCodePointsAndEndsInAnEllipsis) {
  EXPECT_EQ(CutToChars("abc", 3), "abc");
  EXPECT_EQ(CutToChars("abcd", 3), "ab\u2026");
  EXPECT_EQ(CutToChars("\u00e9\u00e9\u00e9\u00e9", 3), "\u00e9\u00e9\u2026");
  EXPECT_EQ(CutToChars(Repeat("x", 5000), kSlackTextMaxChars).size(), 2999U + 3U);
}

TEST(OneLineTest, FoldsLineBreaksIntoSingleSpaces) {
  EXPECT_EQ(OneLine("  disk full\r\n\ton db-1 \n"), "disk full on db-1");
  EXPECT_EQ(OneLine("a\n\nb"), "a b");
  EXPECT_EQ(OneLine("\n\n"), "");
}

}  // namespace
}  // namespace quell::core
