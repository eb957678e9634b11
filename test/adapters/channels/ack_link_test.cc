// AckLinkSigner alone: what verifies and what does not, without a server.
#include "quell/adapters/channels/ack_link.h"

#include <gtest/gtest.h>

#include <string>

namespace quell::channels {
namespace {

const core::WallTime kNow{std::chrono::seconds(1798794000)};

class AckLinkTest : public ::testing::Test {
 protected:
  AckLinkSigner signer_{"ack-link-secret-for-tests-0123456789", "https://quell.example",
                        std::chrono::hours(24)};
};

TEST_F(AckLinkTest, TheSignersTokenVerifiesToItsClaim) {
  const std::string token = signer_.Token("db:1", 2, kNow + std::chrono::hours(1));
  auto claim = signer_.Verify(token, kNow);
  ASSERT_TRUE(claim.ok()) << claim.error().message;
  EXPECT_EQ(claim->key, "db:1");
  EXPECT_EQ(claim->generation, 2u);
  EXPECT_EQ(claim->expires_at, kNow + std::chrono::hours(1));
}

// Found by the ack_token fuzzer: numbers with leading zeros, and base64url whose last
// character carried stray low bits, parsed to the same claim and kept the mac valid, so one
// link could be spelled many ways. Only the signer's own spelling verifies now.
TEST_F(AckLinkTest, OnlyTheSignersSpellingOfAClaimVerifies) {
  const std::string token = signer_.Token("db:1", 2, kNow + std::chrono::hours(1));
  ASSERT_EQ(token.substr(0, 5), "v1.2.");
  const size_t key_at = token.find(".ZGI6MQ.");
  ASSERT_NE(key_at, std::string::npos) << token;
  const std::string respelled[] = {
      "v1.02." + token.substr(5),                                       // generation 02
      token.substr(0, 5) + "0" + token.substr(5),                       // expiry with a leading 0
      token.substr(0, key_at) + ".ZGI6MR." + token.substr(key_at + 8),  // low bits set
  };
  for (const std::string& other : respelled) {
    auto claim = signer_.Verify(other, kNow);
    EXPECT_FALSE(claim.ok()) << other;
    if (!claim.ok()) {
      EXPECT_EQ(claim.error().code, core::ErrorCode::kInvalidArgument) << other;
    }
  }
}

}  // namespace
}  // namespace quell::channels
