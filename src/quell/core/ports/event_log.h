#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace quell::core {

enum class LogLevel : uint8_t { kDebug, kInfo, kWarn, kError };

// One named value of a log event: "incident_key", "poll_id", "channel", ... A value built from
// a number or a bool is marked so (`literal`): a JSON log writes it unquoted, so a log
// pipeline can sum `"observations":12` without parsing strings.
struct LogField {
  LogField(std::string_view field_name, std::string_view text) : name(field_name), value(text) {}
  LogField(std::string_view field_name, const std::string& text) : name(field_name), value(text) {}
  LogField(std::string_view field_name, const char* text) : name(field_name), value(text) {}
  LogField(std::string_view field_name, bool flag)
      : name(field_name), value(flag ? "true" : "false"), literal(true) {}
  template <std::integral T>
  requires(!std::same_as<T, bool> && !std::same_as<T, char>)
      LogField(std::string_view field_name, T number)
      : name(field_name), literal(true) {
    const auto end = std::to_chars(digits_, digits_ + sizeof digits_, number).ptr;
    value = std::string_view(digits_, static_cast<size_t>(end - digits_));
  }
  // A copy points at its own digits, never at the original's.
  LogField(const LogField& other) : name(other.name), value(other.value), literal(other.literal) {
    if (other.value.data() == other.digits_) {
      std::char_traits<char>::copy(digits_, other.digits_, other.value.size());
      value = std::string_view(digits_, other.value.size());
    }
  }
  LogField& operator=(const LogField&) = delete;
  ~LogField() = default;

  std::string_view name;
  std::string_view value;
  bool literal = false;  // a JSON number or boolean, written without quotes

 private:
  char digits_[24] = {};  // a 64-bit integer's decimal digits and sign
};

// Structured events of quell's own operation (not of the watched systems): one event name
// ("poll.cycle_end", "dispatch.dead", ...) and a few fields. Values must already be redacted;
// secrets are never passed. Thread-safe.
class EventLog {
 public:
  virtual ~EventLog() = default;
  virtual void Log(LogLevel level, std::string_view event,
                   std::initializer_list<LogField> fields) = 0;
};

}  // namespace quell::core
