#include "quell/core/url.h"

#include <gtest/gtest.h>

#include <string>

namespace quell::core {
namespace {

TEST(UrlEncodeTest, LeavesUnreservedCharactersAlone) {
  EXPECT_EQ(UrlEncode("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(UrlEncode(""), "");
}

TEST(UrlEncodeTest, EncodesQuerySyntaxSoAValueCannotStartAnotherParameter) {
  EXPECT_EQ(UrlEncode("a&b=c"), "a%26b%3Dc");
  EXPECT_EQ(UrlEncode("?#/"), "%3F%23%2F");
  EXPECT_EQ(UrlEncode("100%"), "100%25");
}

TEST(UrlEncodeTest, EncodesSpaceAsPercentTwentyAndPlusAsItself) {
  EXPECT_EQ(UrlEncode("a b"), "a%20b");
  EXPECT_EQ(UrlEncode("a+b"), "a%2Bb");
}

TEST(UrlEncodeTest, EncodesAPromQlExpression) {
  EXPECT_EQ(UrlEncode(R"(max by (tenant) (rate(x{job="a"}[5m])))"),
            "max%20by%20%28tenant%29%20%28rate%28x%7Bjob%3D%22a%22%7D%5B5m%5D%29%29");
}

TEST(UrlEncodeTest, EncodesEveryByteOfUtf8AndControlCharacters) {
  EXPECT_EQ(UrlEncode("\xC3\xA9"), "%C3%A9");  // é
  EXPECT_EQ(UrlEncode(std::string("\0\n\x7F\xFF", 4)), "%00%0A%7F%FF");
}

}  // namespace
}  // namespace quell::core
