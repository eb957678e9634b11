#include "quell/core/text/time.h"

#include <array>
#include <cstdint>
#include <limits>

namespace quell::core {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `width` digits at `pos`; false when any is missing.
bool ReadFixed(std::string_view s, size_t pos, size_t width, int& out) {
  if (pos + width > s.size()) return false;
  int value = 0;
  for (size_t i = pos; i < pos + width; ++i) {
    if (!IsDigit(s[i])) return false;
    value = value * 10 + (s[i] - '0');
  }
  out = value;
  return true;
}

Error BadTimestamp(std::string_view text, std::string_view why) {
  std::string message = "bad timestamp \"";
  message.append(text.substr(0, 64));
  message.append("\": ");
  message.append(why);
  return MakeError(ErrorCode::kInvalidArgument, std::move(message));
}

void AppendDigits(std::string& out, int64_t value, int width) {
  std::array<char, 20> buf{};
  for (int i = width - 1; i >= 0; --i) {
    buf[static_cast<size_t>(i)] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  out.append(buf.data(), static_cast<size_t>(width));
}

// The times "YYYY-MM-DDTHH:MM:SS[.ffffff]Z" can write: the years 0000 to 9999.
constexpr std::chrono::sys_days kFirstWritable{std::chrono::year{0} / std::chrono::January / 1};
constexpr std::chrono::sys_days kPastLastWritable{std::chrono::year{10000} / std::chrono::January /
                                                  1};

}  // namespace

Result<WallTime> ParseRfc3339(std::string_view text) {
  constexpr std::string_view kExpected = "expected RFC 3339, like 2026-12-02T09:00:00Z";
  int year = 0;
  int month = 0;
  int day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
  if (!ReadFixed(text, 0, 4, year) || text.size() < 20 || text[4] != '-' ||
      !ReadFixed(text, 5, 2, month) || text[7] != '-' || !ReadFixed(text, 8, 2, day) ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || !ReadFixed(text, 11, 2, hour) ||
      text[13] != ':' || !ReadFixed(text, 14, 2, minute) || text[16] != ':' ||
      !ReadFixed(text, 17, 2, second)) {
    return BadTimestamp(text, kExpected);
  }
  const std::chrono::year_month_day date{std::chrono::year{year},
                                         std::chrono::month{static_cast<unsigned>(month)},
                                         std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok()) return BadTimestamp(text, "no such date");
  if (hour > 23 || minute > 59) return BadTimestamp(text, "time of day out of range");
  if (second > 59)
    return BadTimestamp(text, "seconds out of range (leap seconds are not supported)");

  size_t pos = 19;
  int64_t micros = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    const size_t start = pos;
    int64_t scale = 100000;
    while (pos < text.size() && IsDigit(text[pos])) {
      micros += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) return BadTimestamp(text, "a '.' must be followed by digits");
  }

  int64_t offset_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int sign = text[pos] == '-' ? -1 : 1;
    int off_h = 0;
    int off_m = 0;
    if (!ReadFixed(text, pos + 1, 2, off_h) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
        !ReadFixed(text, pos + 4, 2, off_m) || off_h > 23 || off_m > 59) {
      return BadTimestamp(text, "bad UTC offset, expected Z or +HH:MM");
    }
    offset_minutes = static_cast<int64_t>(sign) * (off_h * 60 + off_m);
    pos += 6;
  } else {
    return BadTimestamp(text, "missing UTC offset (Z or +HH:MM)");
  }
  if (pos != text.size()) return BadTimestamp(text, "trailing characters");

  const auto local = std::chrono::sys_days{date} + hours{hour} + minutes{minute} + seconds{second};
  const WallTime at{std::chrono::duration_cast<Duration>(local.time_since_epoch()) +
                    Duration{micros} - minutes{offset_minutes}};
  // The offset may carry the first or last day past the four-digit years RFC 3339 can write.
  if (at < kFirstWritable || at >= kPastLastWritable) {
    return BadTimestamp(text, "outside the years 0000 to 9999 in UTC");
  }
  return at;
}

void AppendRfc3339(std::string& out, WallTime t) {
  const auto day_start = std::chrono::floor<days>(t);
  const std::chrono::year_month_day date{day_start};
  int64_t micros_of_day = (t - day_start).count();
  const int64_t micros = micros_of_day % 1000000;
  int64_t secs = micros_of_day / 1000000;
  AppendDigits(out, static_cast<int>(date.year()), 4);
  out.push_back('-');
  AppendDigits(out, static_cast<unsigned>(date.month()), 2);
  out.push_back('-');
  AppendDigits(out, static_cast<unsigned>(date.day()), 2);
  out.push_back('T');
  AppendDigits(out, secs / 3600, 2);
  out.push_back(':');
  AppendDigits(out, secs / 60 % 60, 2);
  out.push_back(':');
  AppendDigits(out, secs % 60, 2);
  if (micros != 0) {
    int64_t fraction = micros;
    int width = 6;
    while (fraction % 10 == 0) {
      fraction /= 10;
      --width;
    }
    out.push_back('.');
    AppendDigits(out, fraction, width);
  }
  out.push_back('Z');
}

std::string FormatRfc3339(WallTime t) {
  std::string out;
  out.reserve(32);
  AppendRfc3339(out, t);
  return out;
}

Result<Duration> ParseDuration(std::string_view text) {
  auto bad = [&](std::string_view why) {
    std::string message = "bad duration \"";
    message.append(text.substr(0, 64));
    message.append("\": ");
    message.append(why);
    return MakeError(ErrorCode::kInvalidArgument, std::move(message));
  };
  if (text.empty()) return bad("empty; expected e.g. 90s, 10m or 1h30m");
  if (text == "0") return Duration{0};
  if (text[0] == '-') return bad("negative durations are not allowed");
  if (text[0] == '+') text.remove_prefix(1);

  // Accumulate in (whole units, fraction) per component to avoid floating point.
  long double total_micros = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t number_start = pos;
    long double value = 0;
    while (pos < text.size() && IsDigit(text[pos])) value = value * 10 + (text[pos++] - '0');
    bool has_digits = pos > number_start;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      long double scale = 0.1L;
      const size_t fraction_start = pos;
      while (pos < text.size() && IsDigit(text[pos])) {
        value += (text[pos++] - '0') * scale;
        scale /= 10;
      }
      has_digits = has_digits || pos > fraction_start;
    }
    if (!has_digits) return bad("expected a number before each unit, e.g. 90s, 10m or 1h30m");
    const size_t unit_start = pos;
    while (pos < text.size() && !IsDigit(text[pos]) && text[pos] != '.') ++pos;
    const std::string_view unit = text.substr(unit_start, pos - unit_start);
    long double micros_per_unit = 0;
    if (unit == "h") {
      micros_per_unit = 3600e6L;
    } else if (unit == "m") {
      micros_per_unit = 60e6L;
    } else if (unit == "s") {
      micros_per_unit = 1e6L;
    } else if (unit == "ms") {
      micros_per_unit = 1e3L;
    } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {
      micros_per_unit = 1;
    } else if (unit == "ns") {
      micros_per_unit = 1e-3L;
    } else if (unit.empty()) {
      return bad("missing unit (use h, m, s, ms, us or ns)");
    } else {
      return bad("unknown unit \"" + std::string(unit) + "\" (use h, m, s, ms, us or ns)");
    }
    total_micros += value * micros_per_unit;
    if (total_micros > static_cast<long double>(std::numeric_limits<int64_t>::max()) / 2) {
      return bad("too large");
    }
  }
  return Duration{static_cast<int64_t>(total_micros + 0.5L)};
}

std::string FormatDuration(Duration d) {
  int64_t micros = d.count();
  if (micros == 0) return "0s";
  std::string out;
  if (micros < 0) {
    out.push_back('-');
    micros = -micros;
  }
  if (micros < 1000000) {
    if (micros % 1000 == 0) return out + std::to_string(micros / 1000) + "ms";
    return out + std::to_string(micros) + "us";
  }
  const int64_t hours_part = micros / 3600000000;
  const int64_t minutes_part = micros / 60000000 % 60;
  const int64_t secs = micros / 1000000 % 60;
  const int64_t fraction = micros % 1000000;
  if (hours_part > 0) out += std::to_string(hours_part) + "h";
  if (hours_part > 0 || minutes_part > 0) out += std::to_string(minutes_part) + "m";
  out += std::to_string(secs);
  if (fraction != 0) {
    std::string digits = std::to_string(fraction);
    digits.insert(0, 6 - digits.size(), '0');
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  out += "s";
  return out;
}

}  // namespace quell::core
