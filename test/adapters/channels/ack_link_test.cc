// AckLinkSigner alone: what verifies and what does not, without a server.
#include "quell/adapters/channels/ack_link.h"

#include <gtest/gtest.h>

#include <string>

namespace quell::channels {
namespace ack_link_test {

const core::WallTime kNow{std::chrono::seconds(1798794000)};
constexpr core::Duration kHour = std::chrono::hours(1);

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

TEST_F(AckLinkTest, AGroupsTokenVerifiesToItsChannelGroupAndEpisode) {
  const std::string link = signer_.GroupLink("ops-hook", "condition=checkout,tenant=t1", 7, kNow);
  const std::string base = "https://quell.example/v1/ack/";
  ASSERT_EQ(link.substr(0, base.size()), base);
  const std::string token = link.substr(base.size());
  EXPECT_EQ(token.substr(0, 5), "g1.7.");
  auto claim = signer_.Verify(token, kNow);
  ASSERT_TRUE(claim.ok()) << claim.error().message;
  EXPECT_TRUE(claim->is_group());
  EXPECT_EQ(claim->channel, "ops-hook");
  EXPECT_EQ(claim->group_key, "condition=checkout,tenant=t1");
  EXPECT_EQ(claim->episode, 7u);
  EXPECT_EQ(claim->key, "");
  EXPECT_EQ(claim->expires_at, kNow + std::chrono::hours(24));
  auto expired = signer_.Verify(token, kNow + std::chrono::hours(24));
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.error().code, core::ErrorCode::kRejected);
}

// A group's link names its channel, group and episode under the mac: another channel's,
// group's or episode's spelling in the same token, a token cut short or grown, an episode 0 or
// an incident token's version with a group's parts never verify.
TEST_F(AckLinkTest, AGroupsTokenAlteredInAnyPartDoesNotVerify) {
  const std::string token = signer_.GroupToken("ops-hook", "tenant=t1", 3, kNow + kHour);
  const std::string other_channel = signer_.GroupToken("ops-hook2", "tenant=t1", 3, kNow + kHour);
  const std::string other_group = signer_.GroupToken("ops-hook", "tenant=t2", 3, kNow + kHour);
  const auto mac = [](const std::string& t) { return t.substr(t.rfind('.') + 1); };
  const auto body = [](const std::string& t) { return t.substr(0, t.rfind('.') + 1); };
  const std::string forged[] = {
      body(other_channel) + mac(token),
      body(other_group) + mac(token),
      "g1.4" + token.substr(4),
  };
  for (const std::string& other : forged) {
    auto claim = signer_.Verify(other, kNow);
    ASSERT_FALSE(claim.ok()) << other;
    EXPECT_EQ(claim.error().code, core::ErrorCode::kPermissionDenied) << other;
  }
  const std::string malformed[] = {
      "g1.0" + token.substr(4),   // episode 0
      token + "." + mac(token),   // one part too many
      body(token),                // the mac missing
      "v1" + token.substr(2),     // an incident's version with a group's parts
      "g1.03" + token.substr(4),  // a leading zero
  };
  for (const std::string& other : malformed) {
    auto claim = signer_.Verify(other, kNow);
    ASSERT_FALSE(claim.ok()) << other;
    EXPECT_EQ(claim.error().code, core::ErrorCode::kInvalidArgument) << other;
  }
  EXPECT_FALSE(AckLinkSigner("another-secret-0123456789abcdef", "https://quell.example",
                             std::chrono::hours(24))
                   .Verify(token, kNow)
                   .ok());
}

TEST_F(AckLinkTest, ATokenWithAPartRepeatedPastItsEndDoesNotVerify) {
  const std::string token = signer_.Token("db:1", 2, kNow + kHour);
  const std::string mac = token.substr(token.rfind('.') + 1);
  auto claim = signer_.Verify(token + "." + mac, kNow);
  ASSERT_FALSE(claim.ok());
  EXPECT_EQ(claim.error().code, core::ErrorCode::kInvalidArgument);
}

}  // namespace ack_link_test
}  // namespace quell::channels
