#include "quell/adapters/zones/date_zone_rules.h"

#include <gtest/gtest.h>

#include "quell/core/delivery/maintenance_window.h"
#include "quell/core/delivery/sms_policy.h"

namespace quell::zones {
namespace {

core::WallTime At(const char* text) { return *core::ParseRfc3339(text); }

core::LocalTime Local(const char* text) { return core::LocalTime{At(text).time_since_epoch()}; }

std::string LocalText(core::LocalTime local) {
  return core::FormatRfc3339(core::WallTime{local.time_since_epoch()});
}

core::MaintenanceWindow Window(const char* zone, const char* weekday, const char* times) {
  core::MaintenanceWindow window;
  window.name = "w";
  window.time_zone = zone;
  window.weekdays[*core::ParseWeekday(weekday)] = true;
  window.times.push_back(*core::ParseTimeRange(times));
  return window;
}

TEST(DateZoneRulesTest, ReadsTheSystemTzdataAcrossDaylightSavingChanges) {
  const DateZoneRules& zones = SystemZoneRules();
  // Berlin moves to summer time on 29 March 2026, New York on 8 March 2026.
  EXPECT_EQ(LocalText(*zones.ToLocal("Europe/Berlin", At("2026-03-24T08:30:00Z"))),
            "2026-03-24T09:30:00Z");
  EXPECT_EQ(LocalText(*zones.ToLocal("Europe/Berlin", At("2026-03-31T07:30:00Z"))),
            "2026-03-31T09:30:00Z");
  EXPECT_EQ(LocalText(*zones.ToLocal("America/New_York", At("2026-03-07T14:00:00Z"))),
            "2026-03-07T09:00:00Z");
  EXPECT_EQ(LocalText(*zones.ToLocal("America/New_York", At("2026-03-09T13:00:00Z"))),
            "2026-03-09T09:00:00Z");
  EXPECT_EQ(core::FormatRfc3339(*zones.ToUtc("Europe/Berlin", Local("2026-03-31T09:00:00Z"))),
            "2026-03-31T07:00:00Z");
  // 02:30 does not happen in Berlin on 29 March: the instant the clocks jumped.
  EXPECT_EQ(core::FormatRfc3339(*zones.ToUtc("Europe/Berlin", Local("2026-03-29T02:30:00Z"))),
            "2026-03-29T01:00:00Z");
  // 01:30 happens twice in New York on 1 November 2026: the first.
  EXPECT_EQ(core::FormatRfc3339(*zones.ToUtc("America/New_York", Local("2026-11-01T01:30:00Z"))),
            "2026-11-01T05:30:00Z");
}

TEST(DateZoneRulesTest, RefusesAnUnknownZone) {
  const auto checked = SystemZoneRules().CheckZone("Europe/Atlantis");
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().code, core::ErrorCode::kNotFound);
  EXPECT_NE(checked.error().message.find("Europe/Atlantis"), std::string::npos);
  EXPECT_TRUE(SystemZoneRules().CheckZone("America/New_York"));
}

TEST(DateZoneRulesTest, WindowsKeepLocalHoursOnBothSidesOfEachChange) {
  const DateZoneRules& zones = SystemZoneRules();
  const auto berlin = Window("Europe/Berlin", "tuesday", "09:00-10:00");
  EXPECT_TRUE(*core::WindowActiveAt(berlin, zones, At("2026-03-24T08:30:00Z")));
  EXPECT_FALSE(*core::WindowActiveAt(berlin, zones, At("2026-03-24T09:30:00Z")));
  EXPECT_TRUE(*core::WindowActiveAt(berlin, zones, At("2026-03-31T07:30:00Z")));
  EXPECT_FALSE(*core::WindowActiveAt(berlin, zones, At("2026-03-31T08:30:00Z")));
  // Saturday night into Sunday across New York's change: 22:00 EST is 03:00Z, 02:00 local
  // never comes (the clocks jump from 02:00 to 03:00 EDT, 07:00Z).
  const auto new_york = Window("America/New_York", "saturday", "22:00-02:30");
  EXPECT_FALSE(*core::WindowActiveAt(new_york, zones, At("2026-03-08T02:59:00Z")));
  EXPECT_TRUE(*core::WindowActiveAt(new_york, zones, At("2026-03-08T03:00:00Z")));
  EXPECT_TRUE(*core::WindowActiveAt(new_york, zones, At("2026-03-08T06:59:00Z")));
  EXPECT_FALSE(*core::WindowActiveAt(new_york, zones, At("2026-03-08T07:00:00Z")));
  // The week before, in standard time: 22:00-02:30 EST is 03:00Z-07:30Z.
  EXPECT_TRUE(*core::WindowActiveAt(new_york, zones, At("2026-03-01T07:29:00Z")));
  EXPECT_FALSE(*core::WindowActiveAt(new_york, zones, At("2026-03-01T07:30:00Z")));
  auto span = core::CurrentOrNextSpan(new_york, zones, At("2026-03-05T00:00:00Z"));
  ASSERT_TRUE(span && *span);
  EXPECT_EQ(core::FormatRfc3339((*span)->start), "2026-03-08T03:00:00Z");
  EXPECT_EQ(core::FormatRfc3339((*span)->end), "2026-03-08T07:00:00Z");
}

TEST(DateZoneRulesTest, SmsQuietHoursInAZoneEndAtLocalSevenOnBothSidesOfTheChange) {
  core::SmsPacingRules rules;
  rules.quiet_hours =
      core::QuietHours{*core::ParseClockTime("22:00"), *core::ParseClockTime("07:00")};
  rules.time_zone = "Europe/Berlin";
  rules.zones = &SystemZoneRules();
  // The night before the change: 07:00 CET is 06:00Z.
  auto before = core::DecideSmsPacing(rules, {}, "error", At("2026-03-27T23:00:00Z"));
  ASSERT_FALSE(before.send_now);
  EXPECT_EQ(core::FormatRfc3339(before.defer_until), "2026-03-28T06:00:00Z");
  // The night of the change: 07:00 CEST is 05:00Z, where a fixed +01:00 would say 06:00Z.
  auto across = core::DecideSmsPacing(rules, {}, "error", At("2026-03-28T23:00:00Z"));
  ASSERT_FALSE(across.send_now);
  EXPECT_EQ(core::FormatRfc3339(across.defer_until), "2026-03-29T05:00:00Z");
  EXPECT_EQ(across.reason, "quiet hours until 07:00");
  // 21:30Z on 29 March is 23:30 CEST: quiet; 20:30Z is 22:30: quiet; 19:30Z is 21:30: not.
  EXPECT_FALSE(core::DecideSmsPacing(rules, {}, "error", At("2026-03-29T20:30:00Z")).send_now);
  EXPECT_TRUE(core::DecideSmsPacing(rules, {}, "error", At("2026-03-29T19:30:00Z")).send_now);
}

}  // namespace
}  // namespace quell::zones
