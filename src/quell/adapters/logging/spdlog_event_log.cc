#include "quell/adapters/logging/spdlog_event_log.h"

#include <spdlog/logger.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <exception>
#include <utility>

#include "quell/core/text/json_escape.h"
#include "quell/core/text/time.h"

namespace quell::logging {
namespace {

bool NeedsQuotes(std::string_view value) {
  if (value.empty()) return true;
  for (const char c : value) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      return true;
    }
  }
  return false;
}

}  // namespace

const char* LogLevelName(core::LogLevel level) {
  switch (level) {
    case core::LogLevel::kDebug:
      return "debug";
    case core::LogLevel::kInfo:
      return "info";
    case core::LogLevel::kWarn:
      return "warn";
    case core::LogLevel::kError:
      return "error";
  }
  return "info";
}

SpdlogEventLog::SpdlogEventLog(core::Clock& clock, EventLogOptions options,
                               std::shared_ptr<spdlog::sinks::sink> sink)
    : clock_(clock), options_(options) {
  if (!sink) sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  // The line is formatted here, whole; spdlog only serialises writes and owns the sink.
  sink->set_pattern("%v");
  logger_ = std::make_shared<spdlog::logger>("quell", std::move(sink));
  logger_->set_level(spdlog::level::trace);
  logger_->flush_on(spdlog::level::trace);
}

SpdlogEventLog::~SpdlogEventLog() = default;

void SpdlogEventLog::Log(core::LogLevel level, std::string_view event,
                         std::initializer_list<core::LogField> fields) {
  if (level < options_.min_level) return;
  try {
    const std::string line = FormatLine(options_.format, clock_.Now(), level, event, fields);
    logger_->log(spdlog::level::info, std::string_view{line});
  } catch (const std::exception&) {
    // A log line that cannot be written is dropped, never thrown into the run loop.
  }
}

std::string SpdlogEventLog::FormatLine(EventFormat format, core::WallTime at, core::LogLevel level,
                                       std::string_view event,
                                       std::initializer_list<core::LogField> fields) {
  std::string line;
  line.reserve(128);
  if (format == EventFormat::kJson) {
    line.append("{\"ts\":\"");
    core::AppendRfc3339(line, at);
    line.append("\",\"level\":\"").append(LogLevelName(level)).append("\",\"event\":");
    core::AppendJsonString(line, event);
    for (const core::LogField& field : fields) {
      line.push_back(',');
      core::AppendJsonString(line, field.name);
      line.push_back(':');
      if (field.literal) {
        line.append(field.value);
      } else {
        core::AppendJsonString(line, field.value);
      }
    }
    line.push_back('}');
    return line;
  }
  core::AppendRfc3339(line, at);
  line.append(" ").append(LogLevelName(level)).append(" ").append(event);
  for (const core::LogField& field : fields) {
    line.append(" ").append(field.name).append("=");
    if (NeedsQuotes(field.value)) {
      core::AppendJsonString(line, field.value);
    } else {
      line.append(field.value);
    }
  }
  return line;
}

}  // namespace quell::logging
