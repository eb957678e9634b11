#include "quell/core/text/request_target.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace quell::core {
namespace {

using Query = std::vector<std::pair<std::string, std::string>>;

TEST(ParseRequestTargetTest, SplitsAndDecodesThePathAndTheQuery) {
  auto t = ParseRequestTarget("/v1/incidents/acme%3Adb%2Fprimary?status=open&q=a+b%2Bc&flag&&x=");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->path, "/v1/incidents/acme:db/primary");
  EXPECT_EQ(t->query, (Query{{"status", "open"}, {"q", "a b+c"}, {"flag", ""}, {"x", ""}}));
  auto plain = ParseRequestTarget("/a+b");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->path, "/a+b");  // '+' is a space only in a query
  EXPECT_TRUE(plain->query.empty());
  auto utf8 = ParseRequestTarget("/caf%C3%A9/\xE2\x82\xAC?k=%F0%9F%98%80");
  ASSERT_TRUE(utf8.ok());
  EXPECT_EQ(utf8->path, "/caf\xC3\xA9/\xE2\x82\xAC");
  EXPECT_EQ(utf8->query, (Query{{"k", "\xF0\x9F\x98\x80"}}));
  auto repeated = ParseRequestTarget("/x?a=1&a=2");
  ASSERT_TRUE(repeated.ok());
  EXPECT_EQ(repeated->query, (Query{{"a", "1"}, {"a", "2"}}));
}

TEST(ParseRequestTargetTest, RefusesTargetsThatAreNotUtf8OrNotEncodedProperly) {
  for (const char* target :
       {"/v1/incidents/%FF", "/v1/incidents/\xFF", "/x?condition=%FF", "/x?%FF=1",
        "/x/%C0%AF",        // overlong '/'
        "/x/%ED%A0%80",     // a surrogate
        "/x?q=%E2%82",      // truncated
        "/x/%F4%90%80%80",  // past U+10FFFF
        "/x/%", "/x/%4", "/x/%G0", "/x?q=50%", "/x?q=%zz", "", "x/y", "http://h/x", "*"}) {
    auto t = ParseRequestTarget(target);
    ASSERT_FALSE(t.ok()) << target;
    EXPECT_EQ(t.error().code, ErrorCode::kInvalidArgument) << target;
    EXPECT_EQ(t.error().message.rfind("the request target ", 0), 0U) << t.error().message;
  }
}

TEST(IsUtf8Test, AcceptsWellFormedTextOnly) {
  EXPECT_TRUE(IsUtf8(""));
  EXPECT_TRUE(IsUtf8("plain"));
  EXPECT_TRUE(IsUtf8("caf\xC3\xA9 \xF0\x9F\x98\x80"));
  EXPECT_FALSE(IsUtf8("\xFF"));
  EXPECT_FALSE(IsUtf8("a\xC3"));
  EXPECT_FALSE(IsUtf8("\xC0\xAF"));
}

}  // namespace
}  // namespace quell::core
