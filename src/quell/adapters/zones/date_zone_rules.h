#pragma once

#include <string_view>

#include "quell/core/ports/zone_rules.h"

namespace quell::zones {

// core::ZoneRules on Howard Hinnant's date-tz library as Debian builds it (USE_OS_TZDB=1): the
// zone rules are read from the system's tzdata (/usr/share/zoneinfo), never downloaded, so a
// tzdata update from the distribution moves every window with it. Thread-safe (date-tz loads
// its database once, under its own lock).
class DateZoneRules : public core::ZoneRules {
 public:
  core::Status CheckZone(std::string_view zone) const override;
  core::Result<core::LocalTime> ToLocal(std::string_view zone, core::WallTime at) const override;
  core::Result<core::WallTime> ToUtc(std::string_view zone, core::LocalTime local) const override;
};

// One instance for the process: the rules hold no state of their own.
const DateZoneRules& SystemZoneRules();

}  // namespace quell::zones
