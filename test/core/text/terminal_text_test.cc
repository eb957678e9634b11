#include "quell/core/text/terminal_text.h"

#include <gtest/gtest.h>

#include <string>

namespace quell::core {
namespace {

TEST(TerminalTextTest, ControlCharactersBecomeVisibleEscapes) {
  using namespace std::string_literals;
  EXPECT_EQ(EscapeForTerminal("acme\x1b[2Jkey"), "acme\\x1b[2Jkey");
  EXPECT_EQ(EscapeForTerminal("cut\0here"s), "cut\\0here");
  EXPECT_EQ(EscapeForTerminal("a\nb\tc\rd\x7f"), "a\\nb\\tc\\rd\\x7f");
  EXPECT_EQ(EscapeForTerminal("back\\slash"), "back\\\\slash");
  EXPECT_EQ(EscapeForTerminal("csi\xc2\x9b"
                              "31m"),
            "csi\\u009b31m");
}

TEST(TerminalTextTest, PrintableTextAndUtf8PassUnchanged) {
  EXPECT_EQ(EscapeForTerminal("tenant-42:model-answer:grp-7"), "tenant-42:model-answer:grp-7");
  EXPECT_EQ(EscapeForTerminal("caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac"),
            "caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac");
}

}  // namespace
}  // namespace quell::core
