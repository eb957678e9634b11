#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/ports/zone_rules.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// Local wall-clock minutes of the day, [start, end). start > end spans midnight
// ("22:00" to "07:00"); start == end is never quiet.
struct QuietHours {
  int start_minute = 0;
  int end_minute = 0;
};

// How often one SMS recipient may be texted. Pure data; see DecideSmsPacing.
struct SmsPacingRules {
  Duration min_interval{0};  // between two messages to the same recipient; 0: none
  std::optional<QuietHours> quiet_hours;
  // Quiet hours are read in the IANA zone `time_zone` through `zones` when both are set (so they
  // keep their local hours across daylight-saving changes), else in the fixed offset.
  std::string time_zone;
  const ZoneRules* zones = nullptr;
  int utc_offset_minutes = 0;
  // Severities sent anyway; "fatal" counts as "critical" here.
  std::vector<std::string> quiet_hours_override = {"critical"};
  uint32_t daily_cap = 0;  // messages per recipient in any rolling 24 hours; 0: no cap
};

struct SmsPacingDecision {
  bool send_now = true;
  WallTime defer_until;  // when !send_now: the earliest time every rule allows a send
  std::string reason;    // when !send_now: "quiet hours until 07:00", "min interval", "daily cap"
};

// "+HH:MM", "-HH:MM" or "Z" as minutes east of UTC; kInvalidArgument otherwise.
Result<int> ParseUtcOffset(std::string_view text);
// "HH:MM" (00:00 to 23:59; "24:00" for an end at midnight) as minutes of the day.
Result<int> ParseClockTime(std::string_view text);

// Whether an SMS of `severity` to a recipient who was last texted at `sent` (ascending) may go
// now, else the earliest time it may: the daily cap and the minimum interval first, then quiet
// hours at the resulting moment (which `quiet_hours_override` severities ignore). The reason names
// the rule that set the time.
SmsPacingDecision DecideSmsPacing(const SmsPacingRules& rules, std::span<const WallTime> sent,
                                  std::string_view severity, WallTime now);

}  // namespace quell::core
