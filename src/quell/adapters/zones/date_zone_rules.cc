#include "quell/adapters/zones/date_zone_rules.h"

#include <date/tz.h>

#include <exception>
#include <string>

namespace quell::zones {
namespace {

// date-tz reports an unknown zone (and a missing tzdata) by throwing; it stays in this file.
core::Result<const date::time_zone*> Locate(std::string_view zone) {
  try {
    return date::locate_zone(zone);
  } catch (const std::exception& e) {
    return core::MakeError(core::ErrorCode::kNotFound,
                           "unknown time zone \"" + std::string(zone) +
                               "\" (an IANA name such as Europe/Berlin, from the system's "
                               "tzdata): " +
                               e.what());
  }
}

}  // namespace

core::Status DateZoneRules::CheckZone(std::string_view zone) const {
  auto found = Locate(zone);
  if (!found) return found.error();
  return {};
}

core::Result<core::LocalTime> DateZoneRules::ToLocal(std::string_view zone,
                                                     core::WallTime at) const {
  auto found = Locate(zone);
  if (!found) return found.error();
  const auto local = (*found)->to_local(at);
  return core::LocalTime{local.time_since_epoch()};
}

core::Result<core::WallTime> DateZoneRules::ToUtc(std::string_view zone,
                                                  core::LocalTime local) const {
  auto found = Locate(zone);
  if (!found) return found.error();
  const date::local_time<core::Duration> reading{local.time_since_epoch()};
  const date::local_info info = (*found)->get_info(reading);
  if (info.result == date::local_info::nonexistent) {
    // Skipped by the change to summer time: the instant the clocks jumped.
    return core::WallTime{
        std::chrono::duration_cast<core::Duration>(info.first.end.time_since_epoch())};
  }
  // Unique, or read twice (the change back): the first instant.
  return core::WallTime{reading.time_since_epoch() -
                        std::chrono::duration_cast<core::Duration>(info.first.offset)};
}

const DateZoneRules& SystemZoneRules() {
  static const DateZoneRules rules;
  return rules;
}

}  // namespace quell::zones
