// core/text/base64 and core/text/hex: the one encoder of each, against RFC 4648's vectors.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

#include "quell/core/text/base64.h"
#include "quell/core/text/hex.h"

namespace quell::core {
namespace {

std::string Encoded(std::string_view bytes, Base64Alphabet alphabet) {
  std::string out;
  AppendBase64(out, bytes, alphabet);
  return out;
}

TEST(Base64Test, StandardMatchesRfc4648Vectors) {
  EXPECT_EQ(Encoded("", Base64Alphabet::kStandard), "");
  EXPECT_EQ(Encoded("f", Base64Alphabet::kStandard), "Zg==");
  EXPECT_EQ(Encoded("fo", Base64Alphabet::kStandard), "Zm8=");
  EXPECT_EQ(Encoded("foo", Base64Alphabet::kStandard), "Zm9v");
  EXPECT_EQ(Encoded("foob", Base64Alphabet::kStandard), "Zm9vYg==");
  EXPECT_EQ(Encoded("fooba", Base64Alphabet::kStandard), "Zm9vYmE=");
  EXPECT_EQ(Encoded("foobar", Base64Alphabet::kStandard), "Zm9vYmFy");
}

TEST(Base64Test, UrlSafeUsesItsAlphabetWithoutPaddingAndRoundTrips) {
  const std::string bytes("\xfb\xff\xfe", 3);
  EXPECT_EQ(Encoded(bytes, Base64Alphabet::kStandard), "+//+");
  EXPECT_EQ(Encoded(bytes, Base64Alphabet::kUrlSafe), "-__-");
  EXPECT_EQ(Encoded("fo", Base64Alphabet::kUrlSafe), "Zm8");
  for (const std::string& text :
       {std::string(), std::string("f"), std::string("tenant=t1"), bytes}) {
    const auto decoded = DecodeBase64Url(Encoded(text, Base64Alphabet::kUrlSafe));
    ASSERT_TRUE(decoded.has_value()) << text;
    EXPECT_EQ(*decoded, text);
  }
  EXPECT_FALSE(DecodeBase64Url("Zm8=").has_value());  // padding is not in the alphabet
  EXPECT_FALSE(DecodeBase64Url("+//+").has_value());  // nor the standard alphabet's digits
}

TEST(HexTest, LowercaseTwoDigitsPerByte) {
  const std::array<uint8_t, 4> bytes{0x00, 0x0f, 0xa0, 0xff};
  EXPECT_EQ(HexOf(bytes), "000fa0ff");
  std::string out = "q1-";
  AppendHex(out, std::span<const uint8_t>(bytes).first(2));
  EXPECT_EQ(out, "q1-000f");
}

}  // namespace
}  // namespace quell::core
