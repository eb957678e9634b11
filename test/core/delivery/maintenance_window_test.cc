#include "quell/core/delivery/maintenance_window.h"

#include <gtest/gtest.h>

namespace quell::core {
namespace maintenance_window_test {

WallTime At(const char* text) { return *ParseRfc3339(text); }

// A zone an hour east of UTC that moves to two hours at 2026-03-29T01:00Z, as Berlin does;
// "Fixed/UTC" stays at UTC. Enough rules to test the window arithmetic without a tz database.
class FakeZones : public ZoneRules {
 public:
  Status CheckZone(std::string_view zone) const override {
    if (zone == "Test/Shift" || zone == "Fixed/UTC") return {};
    return MakeError(ErrorCode::kNotFound, "unknown time zone " + std::string(zone));
  }
  Result<LocalTime> ToLocal(std::string_view zone, WallTime at) const override {
    if (auto known = CheckZone(zone); !known) return known.error();
    return LocalTime{(at + Offset(zone, at)).time_since_epoch()};
  }
  Result<WallTime> ToUtc(std::string_view zone, LocalTime local) const override {
    if (auto known = CheckZone(zone); !known) return known.error();
    const WallTime as_utc{local.time_since_epoch()};
    const WallTime before = as_utc - Offset(zone, as_utc - std::chrono::hours{3});
    const WallTime after = as_utc - Offset(zone, as_utc + std::chrono::hours{3});
    if (before < kChange) return before;  // also the first of a reading seen twice
    if (after >= kChange) return after;
    return kChange;  // skipped by the change
  }

 private:
  Duration Offset(std::string_view zone, WallTime at) const {
    if (zone == "Fixed/UTC") return Duration{0};
    return at < kChange ? std::chrono::hours{1} : std::chrono::hours{2};
  }
  const WallTime kChange = At("2026-03-29T01:00:00Z");
};

MaintenanceWindow Tuesdays(const char* times) {
  MaintenanceWindow window;
  window.name = "tuesday-deploys";
  window.keys = "deploy:*";
  window.time_zone = "Test/Shift";
  window.weekdays[*ParseWeekday("Tuesday")] = true;
  window.times.push_back(*ParseTimeRange(times));
  return window;
}

TEST(MaintenanceWindowTest, KeepsItsLocalHoursOnBothSidesOfTheChange) {
  const FakeZones zones;
  const MaintenanceWindow window = Tuesdays("09:00-10:00");
  // 24 March: 09:00 local is 08:00Z; 31 March: 07:00Z.
  EXPECT_TRUE(*WindowActiveAt(window, zones, At("2026-03-24T08:30:00Z")));
  EXPECT_FALSE(*WindowActiveAt(window, zones, At("2026-03-24T09:30:00Z")));
  EXPECT_TRUE(*WindowActiveAt(window, zones, At("2026-03-31T07:30:00Z")));
  EXPECT_FALSE(*WindowActiveAt(window, zones, At("2026-03-31T08:30:00Z")));
  EXPECT_FALSE(*WindowActiveAt(window, zones, At("2026-03-31T06:59:59Z")));
  EXPECT_FALSE(*WindowActiveAt(window, zones, At("2026-03-25T08:30:00Z")));  // a Wednesday
}

TEST(MaintenanceWindowTest, AcrossMidnightBelongsToTheDayItStarts) {
  const FakeZones zones;
  MaintenanceWindow window = Tuesdays("22:00-02:00");
  window.time_zone = "Fixed/UTC";
  EXPECT_TRUE(*WindowActiveAt(window, zones, At("2026-03-24T23:00:00Z")));  // Tuesday night
  EXPECT_TRUE(*WindowActiveAt(window, zones, At("2026-03-25T01:59:00Z")));  // Wednesday early
  EXPECT_FALSE(*WindowActiveAt(window, zones, At("2026-03-25T02:00:00Z")));
  EXPECT_FALSE(*WindowActiveAt(window, zones, At("2026-03-24T01:00:00Z")));  // Monday's night
  EXPECT_FALSE(*WindowActiveAt(window, zones, At("2026-03-25T23:00:00Z")));  // Wednesday night
}

TEST(MaintenanceWindowTest, CoversByKeyGlobAndEveryLabel) {
  MaintenanceWindow window = Tuesdays("09:00-10:00");
  window.labels = {{"tenant", "acme"}};
  EXPECT_TRUE(WindowCovers(window, "deploy:api", {{"region", "eu"}, {"tenant", "acme"}}));
  EXPECT_FALSE(WindowCovers(window, "deploy:api", {{"tenant", "other"}}));
  EXPECT_FALSE(WindowCovers(window, "deploy:api", {}));
  EXPECT_FALSE(WindowCovers(window, "db:main", {{"tenant", "acme"}}));
}

TEST(MaintenanceWindowTest, FindsTheCurrentOrNextOccurrenceInUtc) {
  const FakeZones zones;
  const MaintenanceWindow window = Tuesdays("09:00-10:00");
  auto next = CurrentOrNextSpan(window, zones, At("2026-03-27T12:00:00Z"));
  ASSERT_TRUE(next && *next);
  EXPECT_EQ(FormatRfc3339((*next)->start), "2026-03-31T07:00:00Z");
  EXPECT_EQ(FormatRfc3339((*next)->end), "2026-03-31T08:00:00Z");
  auto current = CurrentOrNextSpan(window, zones, At("2026-03-24T08:15:00Z"));
  ASSERT_TRUE(current && *current);
  EXPECT_EQ(FormatRfc3339((*current)->start), "2026-03-24T08:00:00Z");
}

TEST(MaintenanceWindowTest, FormatsRangesAndWeekdaysAsTheConfigWritesThem) {
  for (const char* text : {"09:00-10:00", "22:30-02:05", "00:15-24:00"}) {
    EXPECT_EQ(FormatTimeRange(*ParseTimeRange(text)), text);
  }
  EXPECT_EQ(FormatTimeRange(*ParseTimeRange("23:00-00:00")), "23:00-24:00");
  EXPECT_EQ(WeekdayName(*ParseWeekday("Tuesday")), "tuesday");
  EXPECT_EQ(WeekdayName(0), "sunday");
}

// "Sundays, all day" is written 00:00-24:00; 00:00-00:00 says nothing and is refused.
TEST(MaintenanceWindowTest, AWholeDayIsMidnightToMidnight) {
  auto whole = ParseTimeRange("00:00-24:00");
  ASSERT_TRUE(whole) << whole.error().message;
  MaintenanceWindow window = Tuesdays("00:00-24:00");
  window.time_zone = "Fixed/UTC";
  const FakeZones zones;
  EXPECT_TRUE(*WindowActiveAt(window, zones, At("2026-03-24T00:00:00Z")));
  EXPECT_TRUE(*WindowActiveAt(window, zones, At("2026-03-24T23:59:59Z")));
  EXPECT_FALSE(*WindowActiveAt(window, zones, At("2026-03-25T00:00:00Z")));
  EXPECT_FALSE(*WindowActiveAt(window, zones, At("2026-03-23T23:59:59Z")));
  auto span = CurrentOrNextSpan(window, zones, At("2026-03-24T12:00:00Z"));
  ASSERT_TRUE(span && *span);
  EXPECT_EQ(FormatRfc3339((*span)->start), "2026-03-24T00:00:00Z");
  EXPECT_EQ(FormatRfc3339((*span)->end), "2026-03-25T00:00:00Z");
  auto nothing = ParseTimeRange("00:00-00:00");
  ASSERT_FALSE(nothing);
  EXPECT_NE(nothing.error().message.find("00:00-24:00"), std::string::npos);
}

TEST(MaintenanceWindowTest, RefusesBadRangesWeekdaysAndUnknownZones) {
  EXPECT_FALSE(ParseTimeRange("09:00"));
  EXPECT_FALSE(ParseTimeRange("9-10"));
  EXPECT_FALSE(ParseTimeRange("25:00-26:00"));
  EXPECT_FALSE(ParseTimeRange("09:00-09:00"));
  EXPECT_FALSE(ParseWeekday("tues"));
  EXPECT_EQ(*ParseWeekday("SUNDAY"), 0u);
  MaintenanceWindow window = Tuesdays("09:00-10:00");
  window.time_zone = "Mars/Olympus";
  auto active = WindowActiveAt(window, FakeZones(), At("2026-03-24T08:30:00Z"));
  ASSERT_FALSE(active);
  EXPECT_EQ(active.error().code, ErrorCode::kNotFound);
}

}  // namespace maintenance_window_test
}  // namespace quell::core
