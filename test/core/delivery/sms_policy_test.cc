#include "quell/core/delivery/sms_policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace quell::core {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

const WallTime kDay = WallTime{hours{24 * 20789}};  // 2026-12-02T00:00:00Z

SmsPacingRules QuietNights() {
  SmsPacingRules rules;
  rules.quiet_hours = QuietHours{*ParseClockTime("22:00"), *ParseClockTime("07:00")};
  return rules;
}

TEST(SmsPolicyTest, SendsAtOnceWithoutRules) {
  const SmsPacingDecision d = DecideSmsPacing(SmsPacingRules{}, {}, "warning", kDay);
  EXPECT_TRUE(d.send_now);
}

TEST(SmsPolicyTest, QuietHoursSpanningMidnightDeferToTheirEnd) {
  const SmsPacingRules rules = QuietNights();
  for (const WallTime now : {kDay + hours{23}, kDay + hours{2} + minutes{30}}) {
    const SmsPacingDecision d = DecideSmsPacing(rules, {}, "warning", now);
    ASSERT_FALSE(d.send_now);
    EXPECT_EQ(d.reason, "quiet hours until 07:00");
    EXPECT_EQ(d.defer_until, now < kDay + hours{7} ? kDay + hours{7} : kDay + hours{31});
  }
  EXPECT_TRUE(DecideSmsPacing(rules, {}, "warning", kDay + hours{7}).send_now);
  EXPECT_TRUE(DecideSmsPacing(rules, {}, "warning", kDay + hours{21} + minutes{59}).send_now);
  EXPECT_FALSE(DecideSmsPacing(rules, {}, "warning", kDay + hours{22}).send_now);
}

TEST(SmsPolicyTest, QuietHoursAreReadInTheFixedOffset) {
  SmsPacingRules rules = QuietNights();
  rules.utc_offset_minutes = *ParseUtcOffset("+02:00");
  // 21:00Z is 23:00 at +02:00: quiet until 07:00 local, 05:00Z the next day.
  const SmsPacingDecision d = DecideSmsPacing(rules, {}, "error", kDay + hours{21});
  ASSERT_FALSE(d.send_now);
  EXPECT_EQ(d.defer_until, kDay + hours{29});
  // 06:00Z is 08:00 local: not quiet.
  EXPECT_TRUE(DecideSmsPacing(rules, {}, "error", kDay + hours{6}).send_now);
}

TEST(SmsPolicyTest, CriticalOverridesQuietHoursByDefault) {
  const SmsPacingRules rules = QuietNights();
  EXPECT_TRUE(DecideSmsPacing(rules, {}, "critical", kDay + hours{3}).send_now);
  SmsPacingRules none = rules;
  none.quiet_hours_override.clear();
  EXPECT_FALSE(DecideSmsPacing(none, {}, "critical", kDay + hours{3}).send_now);
}

// Messages now carry the source's level: a fatal error group is at least as urgent as a
// critical one, though the override list (critical, error, warning, info) cannot name it.
TEST(SmsPolicyTest, FatalOverridesQuietHoursWhereverCriticalDoes) {
  const SmsPacingRules rules = QuietNights();
  EXPECT_TRUE(DecideSmsPacing(rules, {}, "fatal", kDay + hours{3}).send_now);
  SmsPacingRules none = rules;
  none.quiet_hours_override.clear();
  EXPECT_FALSE(DecideSmsPacing(none, {}, "fatal", kDay + hours{3}).send_now);
}

TEST(SmsPolicyTest, MinIntervalDefersFromTheLastSend) {
  SmsPacingRules rules;
  rules.min_interval = minutes{10};
  const std::vector<WallTime> sent = {kDay + hours{9}, kDay + hours{10}};
  const SmsPacingDecision d =
      DecideSmsPacing(rules, sent, "critical", kDay + hours{10} + minutes{4});
  ASSERT_FALSE(d.send_now);
  EXPECT_EQ(d.reason, "min interval");
  EXPECT_EQ(d.defer_until, kDay + hours{10} + minutes{10});
  EXPECT_TRUE(DecideSmsPacing(rules, sent, "critical", kDay + hours{10} + minutes{10}).send_now);
}

TEST(SmsPolicyTest, DailyCapWindowRolls) {
  SmsPacingRules rules;
  rules.daily_cap = 3;
  const std::vector<WallTime> sent = {kDay + hours{1}, kDay + hours{5}, kDay + hours{9},
                                      kDay + hours{12}};
  // At 20:00 the last 24 hours hold 4 sends: wait until the second (05:00) leaves the window.
  const SmsPacingDecision d = DecideSmsPacing(rules, sent, "critical", kDay + hours{20});
  ASSERT_FALSE(d.send_now);
  EXPECT_EQ(d.reason, "daily cap");
  EXPECT_EQ(d.defer_until, kDay + hours{29});
  // Next day at 06:00 the 01:00 and 05:00 sends have rolled out.
  EXPECT_TRUE(DecideSmsPacing(rules, sent, "critical", kDay + hours{29}).send_now);
  EXPECT_FALSE(DecideSmsPacing(rules, sent, "critical", kDay + hours{28}).send_now);
}

TEST(SmsPolicyTest, ADeferralIntoQuietHoursWaitsForTheirEnd) {
  SmsPacingRules rules = QuietNights();
  rules.min_interval = hours{1};
  const std::vector<WallTime> sent = {kDay + hours{21} + minutes{30}};
  const SmsPacingDecision d =
      DecideSmsPacing(rules, sent, "warning", kDay + hours{21} + minutes{45});
  ASSERT_FALSE(d.send_now);
  EXPECT_EQ(d.reason, "quiet hours until 07:00");
  EXPECT_EQ(d.defer_until, kDay + hours{31});
}

TEST(SmsPolicyTest, ParsesOffsetsAndClockTimes) {
  EXPECT_EQ(*ParseUtcOffset("-05:30"), -330);
  EXPECT_EQ(*ParseUtcOffset("Z"), 0);
  EXPECT_FALSE(ParseUtcOffset("Europe/Berlin").ok());
  EXPECT_FALSE(ParseUtcOffset("+5:00").ok());
  EXPECT_EQ(*ParseClockTime("07:00"), 420);
  EXPECT_EQ(*ParseClockTime("24:00"), 1440);
  EXPECT_FALSE(ParseClockTime("25:00").ok());
  EXPECT_FALSE(ParseClockTime("7:00").ok());
}

}  // namespace
}  // namespace quell::core
