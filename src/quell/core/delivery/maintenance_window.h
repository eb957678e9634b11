#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/engine/labels.h"
#include "quell/core/ports/zone_rules.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// Local minutes of the day, [start, end). end <= start spans midnight ("22:00-02:00"): the
// part after midnight belongs to the weekday the range started on.
struct TimeRange {
  int start_minute = 0;
  int end_minute = 0;
};

// One occurrence of a window: [start, end) as instants.
struct WindowSpan {
  WallTime start;
  WallTime end;
};

// A recurring window in which transitions of matching incidents are recorded as muted instead
// of sent ("deploys on Tuesdays 09:00-10:00 Berlin time"). Read in the window's own zone, so it
// keeps its local hours across daylight-saving changes.
struct MaintenanceWindow {
  std::string name;
  std::string keys = "*";          // a key glob, as for silences
  Labels labels;                   // each must be on the incident with this value
  std::string time_zone;           // IANA name
  std::array<bool, 7> weekdays{};  // by std::chrono::weekday::c_encoding(): 0 is Sunday
  std::vector<TimeRange> times;
  // A one-off window an operator added (core/ports/one_off_window.h): open during this span
  // only; time_zone, weekdays and times are not read.
  std::optional<WindowSpan> span;
};

// "HH:MM-HH:MM" (an end of "24:00" is midnight, so "00:00-24:00" is the whole day);
// kInvalidArgument saying why otherwise.
Result<TimeRange> ParseTimeRange(std::string_view text);
// "monday" ... "sunday" (any case) as c_encoding; kInvalidArgument otherwise.
Result<unsigned> ParseWeekday(std::string_view name);
// The range as ParseTimeRange reads it back ("09:00-10:00"; a midnight end is "24:00").
std::string FormatTimeRange(const TimeRange& range);
// "sunday" ... "saturday" for c_encoding 0 ... 6.
std::string_view WeekdayName(unsigned c_encoding);

// Whether the window is about this incident: its key glob and every label matcher match.
bool WindowCovers(const MaintenanceWindow& window, std::string_view key, const Labels& labels);

// Whether the window is open at `at`. kNotFound when `zones` does not know its zone.
Result<bool> WindowActiveAt(const MaintenanceWindow& window, const ZoneRules& zones, WallTime at);

// The first of `windows` covering the incident that is open at `at`; nullptr when none is.
Result<const MaintenanceWindow*> ActiveWindowFor(std::span<const MaintenanceWindow> windows,
                                                 const ZoneRules& zones, std::string_view key,
                                                 const Labels& labels, WallTime at);

// The occurrence containing `at`, else the next one to start after it (looking up to 8 days
// ahead); nullopt when the window has no weekday or time. kNotFound for an unknown zone.
Result<std::optional<WindowSpan>> CurrentOrNextSpan(const MaintenanceWindow& window,
                                                    const ZoneRules& zones, WallTime at);

}  // namespace quell::core
