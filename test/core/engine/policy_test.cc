#include "quell/core/engine/policy.h"

#include <gtest/gtest.h>

namespace quell::core {
namespace {

TEST(PolicyTest, DefaultsAreTheReferencePolicy) {
  const Policy policy;
  EXPECT_EQ(policy.cooldown, std::chrono::minutes{10});
  EXPECT_EQ(policy.healthy_polls_to_close, 3U);
  EXPECT_FALSE(policy.flap);
  EXPECT_FALSE(policy.renotify_limit);
  EXPECT_FALSE(policy.min_open);
  EXPECT_TRUE(Validate(policy).ok());
}

TEST(PolicyTest, RejectsUnusableSettingsNamingTheField) {
  Policy zero_streak;
  zero_streak.healthy_polls_to_close = 0;
  EXPECT_NE(Validate(zero_streak).error().message.find("healthy_polls_to_close"),
            std::string::npos);

  Policy negative;
  negative.cooldown = Duration{-1};
  EXPECT_NE(Validate(negative).error().message.find("cooldown"), std::string::npos);

  Policy inverted;
  inverted.flap = FlapDamping{};
  inverted.flap->low_percent = 50;
  inverted.flap->high_percent = 40;
  EXPECT_NE(Validate(inverted).error().message.find("flap thresholds"), std::string::npos);

  Policy wide;
  wide.flap = FlapDamping{};
  wide.flap->window = 33;
  EXPECT_FALSE(Validate(wide).ok());
}

}  // namespace
}  // namespace quell::core
