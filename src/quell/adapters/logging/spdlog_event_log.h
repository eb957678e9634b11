#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"

namespace spdlog {
class logger;
namespace sinks {
class sink;
}  // namespace sinks
}  // namespace spdlog

namespace quell::logging {

enum class EventFormat : uint8_t {
  kJson,  // {"ts":"2026-...Z","level":"info","event":"poll.cycle_end","run_id":"...",...}
  kText,  // 2026-...Z info poll.cycle_end run_id=... (values with spaces quoted)
};

struct EventLogOptions {
  EventFormat format = EventFormat::kJson;
  core::LogLevel min_level = core::LogLevel::kInfo;
};

// core::EventLog on spdlog: one line per event, timestamped from `clock` (so a compressed demo
// clock shows its own time), written to `sink` (stderr when null). Thread-safe; a line is
// written whole or not at all; write failures are swallowed (logging never stops the daemon).
class SpdlogEventLog : public core::EventLog {
 public:
  SpdlogEventLog(core::Clock& clock, EventLogOptions options,
                 std::shared_ptr<spdlog::sinks::sink> sink = nullptr);
  ~SpdlogEventLog() override;
  SpdlogEventLog(const SpdlogEventLog&) = delete;
  SpdlogEventLog& operator=(const SpdlogEventLog&) = delete;

  void Log(core::LogLevel level, std::string_view event,
           std::initializer_list<core::LogField> fields) override;

  // The line Log writes for the event at `at`, without its newline.
  static std::string FormatLine(EventFormat format, core::WallTime at, core::LogLevel level,
                                std::string_view event,
                                std::initializer_list<core::LogField> fields);

 private:
  core::Clock& clock_;
  EventLogOptions options_;
  std::shared_ptr<spdlog::logger> logger_;
};

// "debug", "info", "warn", "error".
const char* LogLevelName(core::LogLevel level);

}  // namespace quell::logging
