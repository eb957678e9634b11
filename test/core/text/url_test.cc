#include "quell/core/text/url.h"

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

TEST(MaskUrlPasswordTest, HidesTheUserinfoPasswordAndKeepsTheRest) {
  EXPECT_EQ(MaskUrlPassword("postgresql://quell:s3cr3t@db.internal:5432/quell"),
            "postgresql://quell:****@db.internal:5432/quell");
  EXPECT_EQ(MaskUrlPassword("mysql://root:pw@h/db"), "mysql://root:****@h/db");
  EXPECT_EQ(MaskUrlPassword("postgres://quell@db/quell"), "postgres://quell@db/quell");
  EXPECT_EQ(MaskUrlPassword("sqlite:/var/lib/quell/quell.db"), "sqlite:/var/lib/quell/quell.db");
  EXPECT_EQ(MaskUrlPassword("http://host/path@x:y"), "http://host/path@x:y");
}

// Every query value, not only password=: libpq also reads sslpassword, and a driver may read
// any other name.
TEST(MaskUrlPasswordTest, ShowsQueryParametersByNameOnly) {
  EXPECT_EQ(MaskUrlPassword("postgresql://db/quell?user=q&password=s3cr3t&sslmode=require"),
            "postgresql://db/quell?user=[redacted]&password=[redacted]&sslmode=[redacted]");
  EXPECT_EQ(MaskUrlPassword("postgresql:///quell?password=a"),
            "postgresql:///quell?password=[redacted]");
  EXPECT_EQ(MaskUrlPassword("postgresql://u:pw@db/q?sslpassword=k3y#frag"),
            "postgresql://u:****@db/q?sslpassword=[redacted]#[redacted]");
  EXPECT_EQ(MaskUrlPassword("sqlite:x?oldpassword=1"), "sqlite:x?oldpassword=[redacted]");
}

}  // namespace
}  // namespace quell::core
