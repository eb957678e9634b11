#include "quell/core/delivery/retry_after.h"

#include <gtest/gtest.h>

namespace quell::core {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example date.
const WallTime kExample =
    WallTime{std::chrono::sys_days{std::chrono::year{1994} / std::chrono::November / 6}} +
    hours{8} + minutes{49} + seconds{37};

TEST(RetryAfterTest, ReadsDelaySeconds) {
  EXPECT_EQ(ParseRetryAfter("120", kExample), seconds{120});
  EXPECT_EQ(ParseRetryAfter("0", kExample), Duration::zero());
  EXPECT_EQ(ParseRetryAfter("007", kExample), seconds{7});
}

TEST(RetryAfterTest, ToleratesSurroundingWhitespace) {
  EXPECT_EQ(ParseRetryAfter("  5\t", kExample), seconds{5});
  EXPECT_EQ(ParseRetryAfter("\tSun, 06 Nov 1994 08:49:47 GMT  ", kExample), seconds{10});
}

TEST(RetryAfterTest, SaturatesHugeDelaysInsteadOfOverflowing) {
  const auto huge = ParseRetryAfter("99999999999999999999999999999999999999", kExample);
  ASSERT_TRUE(huge.has_value());
  EXPECT_GT(*huge, hours{24 * 365 * 1000});
  EXPECT_EQ(ParseRetryAfter("9223372036854775807", kExample), huge);
}

TEST(RetryAfterTest, ReadsAnImfFixdateInTheFuture) {
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:50:07 GMT", kExample), seconds{30});
  EXPECT_EQ(ParseRetryAfter("Mon, 07 Nov 1994 08:49:37 GMT", kExample), hours{24});
}

TEST(RetryAfterTest, MeasuresFromNowIncludingItsFraction) {
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:38 GMT", kExample + milliseconds{250}),
            milliseconds{750});
}

TEST(RetryAfterTest, ADateInThePastOrNowMeansNoWait) {
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", kExample), Duration::zero());
  EXPECT_EQ(ParseRetryAfter("Sat, 05 Nov 1994 08:49:37 GMT", kExample), Duration::zero());
  EXPECT_EQ(ParseRetryAfter("Thu, 01 Jan 1970 00:00:00 GMT", kExample), Duration::zero());
}

TEST(RetryAfterTest, ReadsTheObsoleteRfc850Form) {
  EXPECT_EQ(ParseRetryAfter("Sunday, 06-Nov-94 08:50:37 GMT", kExample), minutes{1});
  // Two-digit years land within 50 years of now: "30" seen from 2026 is 2030, not 1930.
  const WallTime in_2026 =
      WallTime{std::chrono::sys_days{std::chrono::year{2026} / std::chrono::January / 1}};
  const auto far = ParseRetryAfter("Tuesday, 01-Jan-30 00:00:00 GMT", in_2026);
  ASSERT_TRUE(far.has_value());
  EXPECT_EQ(*far, hours{24} * (365 * 4 + 1));
  EXPECT_EQ(ParseRetryAfter("Monday, 01-Jan-90 00:00:00 GMT", in_2026), Duration::zero());
}

TEST(RetryAfterTest, ReadsTheAsctimeForm) {
  EXPECT_EQ(ParseRetryAfter("Sun Nov  6 08:49:57 1994", kExample), seconds{20});
  EXPECT_EQ(ParseRetryAfter("Wed Nov 16 08:49:37 1994", kExample), hours{24 * 10});
}

TEST(RetryAfterTest, RejectsGarbage) {
  for (const char* bad : {"", "   ", "soon", "-5", "+5", "5s", "1.5", "5 5", "0x10",
                          "Sun, 06 Nov 1994 08:49:37",            // no zone
                          "Sun, 06 Nov 1994 08:49:37 UTC",        // only GMT is HTTP-date
                          "sun, 06 nov 1994 08:49:37 GMT",        // names are case-sensitive
                          "Sun, 6 Nov 1994 08:49:37 GMT",         // the day has two digits
                          "Sun, 31 Nov 1994 08:49:37 GMT",        // no such date
                          "Sun, 06 Nov 1994 24:00:00 GMT",        // no such time
                          "Sun, 06 Nov 1994 08:49:37 GMT extra",  // trailing text
                          "Sun, 06-Nov-94 08:49:37 GMT",          // RFC 850 needs the long name
                          "Sun Nov 6 08:49:37 1994"}) {           // asctime pads the day
    EXPECT_EQ(ParseRetryAfter(bad, kExample), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace quell::core
