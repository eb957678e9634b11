#include "quell/core/delivery/retry_after.h"

#include <array>
#include <cstdint>

namespace quell::core {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

// 10^12 seconds: beyond any wait that matters, and 10^18 microseconds still fit in Duration.
constexpr int64_t kMaxDelaySeconds = 1'000'000'000'000;

// Names are case-sensitive in HTTP-date (RFC 9110 section 5.6.7).
constexpr std::array<std::string_view, 7> kShortDays = {"Mon", "Tue", "Wed", "Thu",
                                                        "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> kLongDays = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

struct Civil {
  int year = 0;
  int month = 0;  // 1-12
  int day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
};

// A cursor that moves only past what matched, so each grammar reads as a chain of &&.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  bool Literal(std::string_view literal) {
    if (text_.substr(pos_, literal.size()) != literal) return false;
    pos_ += literal.size();
    return true;
  }
  // Exactly `width` digits.
  bool Number(size_t width, int& out) {
    if (pos_ + width > text_.size()) return false;
    int value = 0;
    for (size_t i = pos_; i < pos_ + width; ++i) {
      if (!IsDigit(text_[i])) return false;
      value = value * 10 + (text_[i] - '0');
    }
    pos_ += width;
    out = value;
    return true;
  }
  // Index + 1 of the first of `names` found here (so a month comes out 1-12), else false.
  template <size_t N>
  bool Name(const std::array<std::string_view, N>& names, int& out) {
    for (size_t i = 0; i < N; ++i) {
      if (Literal(names[i])) {
        out = static_cast<int>(i) + 1;
        return true;
      }
    }
    return false;
  }
  bool TimeOfDay(Civil& c) {
    return Number(2, c.hour) && Literal(":") && Number(2, c.minute) && Literal(":") &&
           Number(2, c.second);
  }
  bool AtEnd() const { return pos_ == text_.size(); }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// The weekday is read but not checked against the date: a wrong one changes nothing we use.
std::optional<Civil> ReadImfFixdate(std::string_view s) {  // Sun, 06 Nov 1994 08:49:37 GMT
  Reader r(s);
  Civil c;
  int weekday = 0;
  if (r.Name(kShortDays, weekday) && r.Literal(", ") && r.Number(2, c.day) && r.Literal(" ") &&
      r.Name(kMonths, c.month) && r.Literal(" ") && r.Number(4, c.year) && r.Literal(" ") &&
      r.TimeOfDay(c) && r.Literal(" GMT") && r.AtEnd()) {
    return c;
  }
  return std::nullopt;
}

// A two-digit year lands within 50 years of now, as RFC 9110 section 5.6.7 requires.
int FullYear(int two_digits, WallTime now) {
  const int now_year =
      static_cast<int>(std::chrono::year_month_day{std::chrono::floor<days>(now)}.year());
  int year = now_year - now_year % 100 + two_digits;
  if (year > now_year + 50) {
    year -= 100;
  } else if (year <= now_year - 50) {
    year += 100;
  }
  return year;
}

std::optional<Civil> ReadRfc850(std::string_view s, WallTime now) {  // Sunday, 06-Nov-94 ...
  Reader r(s);
  Civil c;
  int weekday = 0;
  int two_digit_year = 0;
  if (r.Name(kLongDays, weekday) && r.Literal(", ") && r.Number(2, c.day) && r.Literal("-") &&
      r.Name(kMonths, c.month) && r.Literal("-") && r.Number(2, two_digit_year) && r.Literal(" ") &&
      r.TimeOfDay(c) && r.Literal(" GMT") && r.AtEnd()) {
    c.year = FullYear(two_digit_year, now);
    return c;
  }
  return std::nullopt;
}

std::optional<Civil> ReadAsctime(std::string_view s) {  // Sun Nov  6 08:49:37 1994
  Reader r(s);
  Civil c;
  int weekday = 0;
  if (!r.Name(kShortDays, weekday) || !r.Literal(" ") || !r.Name(kMonths, c.month) ||
      !r.Literal(" ")) {
    return std::nullopt;
  }
  const bool day_read = r.Literal(" ") ? r.Number(1, c.day) : r.Number(2, c.day);
  if (day_read && r.Literal(" ") && r.TimeOfDay(c) && r.Literal(" ") && r.Number(4, c.year) &&
      r.AtEnd()) {
    return c;
  }
  return std::nullopt;
}

std::optional<WallTime> ToWallTime(const Civil& c) {
  const std::chrono::year_month_day date{std::chrono::year{c.year},
                                         std::chrono::month{static_cast<unsigned>(c.month)},
                                         std::chrono::day{static_cast<unsigned>(c.day)}};
  // Second 60 is a leap second; it simply rolls into the next minute.
  if (!date.ok() || c.hour > 23 || c.minute > 59 || c.second > 60) return std::nullopt;
  return WallTime{std::chrono::sys_days{date}} + hours{c.hour} + minutes{c.minute} +
         seconds{c.second};
}

std::optional<Duration> ParseDelaySeconds(std::string_view s) {
  int64_t secs = 0;
  for (const char ch : s) {
    if (!IsDigit(ch)) return std::nullopt;
    const int64_t digit = ch - '0';
    secs = secs > (kMaxDelaySeconds - digit) / 10 ? kMaxDelaySeconds : secs * 10 + digit;
  }
  return std::chrono::duration_cast<Duration>(seconds{secs});
}

}  // namespace

std::optional<Duration> ParseRetryAfter(std::string_view value, WallTime now) {
  const std::string_view s = TrimOws(value);
  if (s.empty()) return std::nullopt;
  if (IsDigit(s.front())) return ParseDelaySeconds(s);

  std::optional<Civil> civil = ReadImfFixdate(s);
  if (!civil) civil = ReadRfc850(s, now);
  if (!civil) civil = ReadAsctime(s);
  if (!civil) return std::nullopt;
  const std::optional<WallTime> at = ToWallTime(*civil);
  if (!at) return std::nullopt;
  return *at > now ? *at - now : Duration::zero();
}

}  // namespace quell::core
