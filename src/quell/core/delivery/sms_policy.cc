#include "quell/core/delivery/sms_policy.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace quell::core {
namespace {

constexpr int kMinutesPerDay = 24 * 60;
constexpr Duration kDay = std::chrono::hours(24);

bool TwoDigits(std::string_view text, size_t at, int& out) {
  if (at + 2 > text.size()) return false;
  const char a = text[at];
  const char b = text[at + 1];
  if (a < '0' || a > '9' || b < '0' || b > '9') return false;
  out = (a - '0') * 10 + (b - '0');
  return true;
}

bool InQuietHours(const QuietHours& quiet, int minute) {
  if (quiet.start_minute == quiet.end_minute) return false;
  if (quiet.start_minute < quiet.end_minute) {
    return minute >= quiet.start_minute && minute < quiet.end_minute;
  }
  return minute >= quiet.start_minute || minute < quiet.end_minute;
}

std::string FormatClock(int minute) {
  char text[8];
  std::snprintf(text, sizeof text, "%02d:%02d", (minute / 60) % 24, minute % 60);
  return text;
}

}  // namespace

Result<int> ParseUtcOffset(std::string_view text) {
  if (text == "Z" || text == "z") return 0;
  int hours = 0;
  int minutes = 0;
  if (text.size() != 6 || (text[0] != '+' && text[0] != '-') || text[3] != ':' ||
      !TwoDigits(text, 1, hours) || !TwoDigits(text, 4, minutes) || hours > 23 || minutes > 59) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "UTC offset \"" + std::string(text) + "\" is not +HH:MM, -HH:MM or Z");
  }
  const int total = hours * 60 + minutes;
  return text[0] == '-' ? -total : total;
}

Result<int> ParseClockTime(std::string_view text) {
  int hours = 0;
  int minutes = 0;
  if (text.size() != 5 || text[2] != ':' || !TwoDigits(text, 0, hours) ||
      !TwoDigits(text, 3, minutes) || minutes > 59 || hours > 24 || (hours == 24 && minutes != 0)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "time of day \"" + std::string(text) + "\" is not HH:MM (00:00 to 24:00)");
  }
  return hours * 60 + minutes;
}

SmsPacingDecision DecideSmsPacing(const SmsPacingRules& rules, std::span<const WallTime> sent,
                                  std::string_view severity, WallTime now) {
  WallTime at = now;
  std::string reason;
  // Both rules only relax as time passes (no send happens while this one waits), so the later
  // of the two is when both allow a send.
  if (rules.daily_cap > 0) {
    const auto window_begin =
        std::upper_bound(sent.begin(), sent.end(), now - kDay);  // sends in (now - 24h, now]
    const auto in_window = static_cast<size_t>(sent.end() - window_begin);
    if (in_window >= rules.daily_cap) {
      // The send that must leave the window for one more to fit in it.
      const WallTime free_at =
          *(window_begin + static_cast<std::ptrdiff_t>(in_window - rules.daily_cap)) + kDay;
      if (free_at > at) {
        at = free_at;
        reason = "daily cap";
      }
    }
  }
  if (rules.min_interval > Duration::zero() && !sent.empty()) {
    const WallTime free_at = sent.back() + rules.min_interval;
    if (free_at > at) {
      at = free_at;
      reason = "min interval";
    }
  }
  const auto listed = [&rules](std::string_view s) {
    return std::find(rules.quiet_hours_override.begin(), rules.quiet_hours_override.end(), s) !=
           rules.quiet_hours_override.end();
  };
  // "fatal" (a source's level) is graver than any word the list may hold: it goes wherever
  // "critical" does.
  const bool overridden = listed(severity) || (severity == "fatal" && listed("critical"));
  if (rules.quiet_hours && !overridden) {
    const Duration offset = std::chrono::minutes(rules.utc_offset_minutes);
    const bool zoned = !rules.time_zone.empty() && rules.zones != nullptr;
    // The zone was checked when the config was read; should it vanish from the system's
    // tzdata, the offset (UTC unless set) is the fallback.
    std::optional<LocalTime> in_zone;
    if (zoned) {
      if (auto read = rules.zones->ToLocal(rules.time_zone, at)) in_zone = *read;
    }
    const LocalTime local = in_zone ? *in_zone : LocalTime{(at + offset).time_since_epoch()};
    const auto day_start = std::chrono::floor<std::chrono::days>(local);
    const int minute = static_cast<int>(
        std::chrono::duration_cast<std::chrono::minutes>(local - day_start).count());
    if (InQuietHours(*rules.quiet_hours, minute)) {
      const int end = rules.quiet_hours->end_minute;
      const int wait = (end - minute + kMinutesPerDay) % kMinutesPerDay;
      // The end of quiet hours on the minute, so a send deferred to it is not quiet again.
      const LocalTime until =
          std::chrono::floor<std::chrono::minutes>(local) + std::chrono::minutes(wait);
      auto until_utc = in_zone ? rules.zones->ToUtc(rules.time_zone, until)
                               : Result<WallTime>(WallTime{until.time_since_epoch()} - offset);
      if (until_utc) at = *until_utc;
      reason = "quiet hours until " + FormatClock(end);
    }
  }
  if (at <= now) return SmsPacingDecision{};
  return SmsPacingDecision{false, at, std::move(reason)};
}

}  // namespace quell::core
