#include "quell/adapters/config/unclosed_quote.h"

#include <gtest/gtest.h>

namespace quell::config {
namespace {

TEST(UnclosedQuoteTest, FindsTheQuoteStillOpenWhereTheParserGaveUp) {
  const char* text =
      "infrai:\n"
      "  timeout: \"30s\n"  // line 2: never closed
      "  retry:\n"
      "    budget: 30s\n";
  const auto at = SuspectQuoteBefore(text, {4, 5});
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->line, 2);
  EXPECT_EQ(at->column, 12);
}

TEST(UnclosedQuoteTest, ClosedQuotesApostrophesCommentsAndEscapesAreNotOpen) {
  const char* text =
      "a: \"x \\\" y\"   # a \"comment\n"
      "b: it's plain\n"
      "c: 'it''s quoted'\n"
      "d: [\"one\", 'two']\n"
      "# 'a comment line\n"
      "e: x\n";
  EXPECT_FALSE(SuspectQuoteBefore(text, {7, 1}).has_value());
}

TEST(UnclosedQuoteTest, AQuoteClosedLinesLaterByAnotherQuoteIsTheSuspect) {
  const char* text =
      "a: \"30s\n"  // line 1: opened, and closed by the quote in the comment below
      "b: 1\n"
      "# the \"comment\n"
      "c: 'fine'\n"
      "d: [\n";
  const auto at = SuspectQuoteBefore(text, {6, 1});
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->line, 1);
  EXPECT_EQ(at->column, 4);
}

TEST(UnclosedQuoteTest, ASingleQuoteOpenedInAListItemIsFound) {
  const auto at = SuspectQuoteBefore("levels:\n  - 'error\n  - fatal\n", {4, 1});
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->line, 2);
  EXPECT_EQ(at->column, 5);
}

}  // namespace
}  // namespace quell::config
