#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace quell::core {

enum class LogLevel : uint8_t { kDebug, kInfo, kWarn, kError };

// One named value of a log event: "incident_key", "poll_id", "channel", ...
struct LogField {
  std::string_view name;
  std::string_view value;
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
