#include "quell/core/delivery/maintenance_window.h"

#include <cctype>

#include "quell/core/delivery/sms_policy.h"
#include "quell/core/engine/silence.h"

namespace quell::core {
namespace {

constexpr std::array<std::string_view, 7> kWeekdays = {"sunday",   "monday", "tuesday", "wednesday",
                                                       "thursday", "friday", "saturday"};

bool OnDay(const MaintenanceWindow& window, std::chrono::weekday day) {
  return window.weekdays[day.c_encoding()];
}

}  // namespace

Result<TimeRange> ParseTimeRange(std::string_view text) {
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "\"" + std::string(text) + "\" is not a range like \"09:00-10:00\"");
  }
  auto start = ParseClockTime(text.substr(0, dash));
  if (!start) return start.error();
  auto end = ParseClockTime(text.substr(dash + 1));
  if (!end) return end.error();
  if (*start == 24 * 60) {
    return MakeError(ErrorCode::kInvalidArgument, "a range cannot start at 24:00");
  }
  if (*start == *end) {
    // Empty, or a day's wrap to itself: not what anyone writes on purpose.
    return MakeError(ErrorCode::kInvalidArgument,
                     "\"" + std::string(text) +
                         "\" must start and end at different times (a whole day is 00:00-24:00)");
  }
  return TimeRange{*start, *end == 0 ? 24 * 60 : *end};
}

Result<unsigned> ParseWeekday(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (unsigned i = 0; i < kWeekdays.size(); ++i) {
    if (lower == kWeekdays[i]) return i;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "\"" + std::string(name) + "\" is not a weekday (monday ... sunday)");
}

std::string FormatTimeRange(const TimeRange& range) {
  std::string out;
  for (const int minute : {range.start_minute, range.end_minute}) {
    if (!out.empty()) out += '-';
    const int hours = minute / 60;
    const int minutes = minute % 60;
    out += static_cast<char>('0' + hours / 10);
    out += static_cast<char>('0' + hours % 10);
    out += ':';
    out += static_cast<char>('0' + minutes / 10);
    out += static_cast<char>('0' + minutes % 10);
  }
  return out;
}

std::string_view WeekdayName(unsigned c_encoding) { return kWeekdays.at(c_encoding % 7); }

bool WindowCovers(const MaintenanceWindow& window, std::string_view key, const Labels& labels) {
  if (!GlobMatch(window.keys, key)) return false;
  for (const auto& [name, value] : window.labels) {
    const auto found = FindLabel(labels, name);
    if (!found || *found != value) return false;
  }
  return true;
}

Result<bool> WindowActiveAt(const MaintenanceWindow& window, const ZoneRules& zones, WallTime at) {
  if (window.span) return window.span->start <= at && at < window.span->end;
  auto local = zones.ToLocal(window.time_zone, at);
  if (!local) return local.error();
  const auto day = std::chrono::floor<std::chrono::days>(*local);
  const auto minute =
      static_cast<int>(std::chrono::floor<std::chrono::minutes>(*local - day).count());
  const std::chrono::weekday today{day};
  const std::chrono::weekday yesterday = today - std::chrono::days{1};
  for (const TimeRange& range : window.times) {
    if (range.start_minute < range.end_minute) {
      if (OnDay(window, today) && minute >= range.start_minute && minute < range.end_minute) {
        return true;
      }
    } else if ((OnDay(window, today) && minute >= range.start_minute) ||
               (OnDay(window, yesterday) && minute < range.end_minute)) {
      return true;
    }
  }
  return false;
}

Result<const MaintenanceWindow*> ActiveWindowFor(std::span<const MaintenanceWindow> windows,
                                                 const ZoneRules& zones, std::string_view key,
                                                 const Labels& labels, WallTime at) {
  for (const MaintenanceWindow& window : windows) {
    if (!WindowCovers(window, key, labels)) continue;
    auto active = WindowActiveAt(window, zones, at);
    if (!active) return active.error();
    if (*active) return &window;
  }
  return static_cast<const MaintenanceWindow*>(nullptr);
}

Result<std::optional<WindowSpan>> CurrentOrNextSpan(const MaintenanceWindow& window,
                                                    const ZoneRules& zones, WallTime at) {
  if (window.span) {
    return window.span->end > at ? window.span : std::optional<WindowSpan>();
  }
  auto local = zones.ToLocal(window.time_zone, at);
  if (!local) return local.error();
  const auto today = std::chrono::floor<std::chrono::days>(*local);
  std::optional<WindowSpan> next;
  // From yesterday (a range across midnight may still be open) to a week and a day ahead.
  for (int offset = -1; offset <= 8; ++offset) {
    const auto day = today + std::chrono::days{offset};
    if (!OnDay(window, std::chrono::weekday{day})) continue;
    for (const TimeRange& range : window.times) {
      const LocalTime start_local = day + std::chrono::minutes{range.start_minute};
      LocalTime end_local = day + std::chrono::minutes{range.end_minute};
      if (range.end_minute <= range.start_minute) end_local += std::chrono::days{1};
      auto start = zones.ToUtc(window.time_zone, start_local);
      if (!start) return start.error();
      auto end = zones.ToUtc(window.time_zone, end_local);
      if (!end) return end.error();
      if (*end <= at) continue;
      if (*start <= at) return std::optional<WindowSpan>(WindowSpan{*start, *end});
      if (!next || *start < next->start) next = WindowSpan{*start, *end};
    }
  }
  return next;
}

}  // namespace quell::core
