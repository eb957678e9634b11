#include "quell/adapters/zones/date_zone_rules.h"

#include <gtest/gtest.h>

#include "quell/core/delivery/maintenance_window.h"

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

}  // namespace
}  // namespace quell::zones
