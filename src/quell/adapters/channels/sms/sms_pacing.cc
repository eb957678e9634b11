#include <string>

#include "quell/adapters/channels/sms/sms_kind.h"
#include "quell/adapters/zones/date_zone_rules.h"

namespace quell::channels {
namespace {

// Minutes of the day of a validated "HH:MM" (the reader checked the shape).
int MinuteOf(const std::string& clock) {
  auto parsed = core::ParseClockTime(clock);
  return parsed ? *parsed : 0;
}

}  // namespace

std::optional<core::SmsPacingRules> SmsKind::Pacing(const Settings& settings) {
  core::SmsPacingRules rules;
  rules.min_interval = settings.min_interval;
  rules.daily_cap = settings.daily_cap;
  if (settings.quiet_start && settings.quiet_end) {
    rules.quiet_hours =
        core::QuietHours{MinuteOf(*settings.quiet_start), MinuteOf(*settings.quiet_end)};
  }
  auto offset = core::ParseUtcOffset(settings.utc_offset);
  rules.utc_offset_minutes = offset ? *offset : 0;
  if (!settings.time_zone.empty()) {
    rules.time_zone = settings.time_zone;
    rules.zones = &zones::SystemZoneRules();
  }
  rules.quiet_hours_override = settings.quiet_override;
  return rules;
}

}  // namespace quell::channels
