#include "quell/adapters/curl/header_list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

// The lines handed to libcurl, and the values refused because they would end a header line
// early (each of CR, LF and NUL on its own).
namespace quell::curl {
namespace {

std::vector<std::string> Lines(const HeaderList& list) {
  std::vector<std::string> lines;
  for (const curl_slist* node = list.get(); node != nullptr; node = node->next) {
    lines.emplace_back(node->data);
  }
  return lines;
}

TEST(HeaderListTest, WritesEachHeaderAsLibcurlReadsIt) {
  const core::Result<HeaderList> list = BuildHeaderList(
      {{"X-Quell-Signature", "v1=" + std::string(64, 'a')}, {"X-Empty", ""}, {"A", "b c"}},
      /*has_body=*/true);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(Lines(*list),
            (std::vector<std::string>{"X-Quell-Signature: v1=" + std::string(64, 'a'), "X-Empty;",
                                      "A: b c", "Expect:", "Content-Type:"}));
  const core::Result<HeaderList> own =
      BuildHeaderList({{"content-type", "text/plain"}, {"EXPECT", "100-continue"}}, true);
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(Lines(*own),
            (std::vector<std::string>{"content-type: text/plain", "EXPECT: 100-continue"}));
}

TEST(HeaderListTest, RefusesALineBreakOrNulInAValue) {
  for (const std::string& value :
       {std::string("secret\r"), std::string("a\nX-In: 1"), std::string("a\0b", 3)}) {
    const core::Result<HeaderList> list = BuildHeaderList({{"X-Token", value}}, false);
    ASSERT_FALSE(list.ok());
    EXPECT_EQ(list.error().code, core::ErrorCode::kInvalidArgument);
    EXPECT_EQ(list.error().message.find("secret"), std::string::npos);
  }
  EXPECT_FALSE(BuildHeaderList({{"Bad Name", "v"}}, false).ok());
}

}  // namespace
}  // namespace quell::curl
