#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"
#include "quell/core/text/time.h"

namespace quell::demo {

// "HH:MM" of `t`, as the demo's lines show the compressed clock.
std::string ClockText(core::WallTime t);

// The daemon's event log, told as a story: one line per poll. A poll's decisions that are not a
// quiet "ignore" are listed as it commits (the daemon logs every decision with its key and
// health); a poll with none of those gets one "quiet" line at its end, so the lines printed
// and the polls counted in the summary agree.
class StoryLog : public core::EventLog {
 public:
  StoryLog(std::FILE* out, core::Clock& clock) : out_(out), clock_(clock) {}
  void Log(core::LogLevel level, std::string_view event,
           std::initializer_list<core::LogField> fields) override;
  int seen() const;  // polls at which the error was seen

 private:
  std::FILE* out_;
  core::Clock& clock_;
  mutable std::mutex mu_;
  int seen_ = 0;
  bool told_this_poll_ = false;
};

}  // namespace quell::demo
