#include "quell/core/conditions/escalation.h"

#include <gtest/gtest.h>

namespace quell::core {
namespace {

using std::chrono::minutes;

std::vector<EscalationTier> ChatThenPager() {
  return {EscalationTier{Duration::zero(), {"chat"}}, EscalationTier{minutes(5), {"pager", "sms"}}};
}

TEST(EscalationTest, ATierDueAtOnceIsAnOrdinaryRowAndLaterTiersAreNumberedByPosition) {
  const std::vector<TierTarget> targets = TierTargets(ChatThenPager());
  ASSERT_EQ(targets.size(), 3u);
  EXPECT_EQ(targets[0].channel, "chat");
  EXPECT_EQ(targets[0].tier, 0u);
  EXPECT_EQ(targets[1].channel, "pager");
  EXPECT_EQ(targets[1].tier, 2u);
  EXPECT_EQ(targets[1].after, minutes(5));
  EXPECT_EQ(targets[2].channel, "sms");
  EXPECT_EQ(targets[2].tier, 2u);
}

TEST(EscalationTest, FlatChannelsAreTierZero) {
  const std::vector<TierTarget> targets = FlatTargets({"a", "b"});
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[1].channel, "b");
  EXPECT_EQ(targets[1].tier, 0u);
}

TEST(EscalationTest, ATierIsDueOnlyOnceItsDelayPastTheOpenHasPassed) {
  const TierTarget pager{"pager", 2, minutes(5)};
  const WallTime opened = WallTime{} + std::chrono::hours(1000);
  EXPECT_FALSE(TierDue(pager, opened, opened + minutes(4)));
  EXPECT_TRUE(TierDue(pager, opened, opened + minutes(5)));
  EXPECT_FALSE(TierDue(pager, std::nullopt, opened + minutes(50)));
  EXPECT_TRUE(TierDue(TierTarget{"chat", 0, {}}, std::nullopt, opened));
}

TEST(EscalationTest, ValidatesTheTierList) {
  EXPECT_TRUE(ValidateEscalation(ChatThenPager()));
  EXPECT_FALSE(ValidateEscalation({}));
  auto no_channels = ChatThenPager();
  no_channels[1].channels.clear();
  EXPECT_NE(ValidateEscalation(no_channels).error().message.find("tier 2: needs channels"),
            std::string::npos);
  auto negative = ChatThenPager();
  negative[0].after = -minutes(1);
  EXPECT_FALSE(ValidateEscalation(negative));
  auto not_increasing = ChatThenPager();
  not_increasing[1].after = Duration::zero();
  EXPECT_NE(ValidateEscalation(not_increasing).error().message.find("later than the tier before"),
            std::string::npos);
  auto twice = ChatThenPager();
  twice[1].channels.push_back("chat");
  EXPECT_NE(ValidateEscalation(twice).error().message.find("\"chat\" is in an earlier tier"),
            std::string::npos);
}

}  // namespace
}  // namespace quell::core
