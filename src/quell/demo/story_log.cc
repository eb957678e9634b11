#include "quell/demo/story_log.h"

namespace quell::demo {

std::string ClockText(core::WallTime t) { return core::FormatRfc3339(t).substr(11, 5); }

void StoryLog::Log(core::LogLevel /*level*/, std::string_view event,
                   std::initializer_list<core::LogField> fields) {
  if (event == "poll.cycle_end") {
    const std::lock_guard<std::mutex> lock(mu_);
    if (!told_this_poll_) {
      std::fprintf(out_, "  %s poll  quiet       %-34s\n", ClockText(clock_.Now()).c_str(),
                   "nothing failing, nothing open");
    }
    told_this_poll_ = false;
    return;
  }
  if (event != "poll.decision") return;
  std::string decision, reason, health, transition;
  for (const core::LogField& f : fields) {
    if (f.name == "decision") decision = f.value;
    if (f.name == "reason") reason = f.value;
    if (f.name == "health") health = f.value;
    if (f.name == "transition") transition = f.value;
  }
  if (decision == "ignore") return;
  const char* seen = health == "unhealthy" ? "error seen"
                     : health == "healthy" ? "healthy   "
                                           : "unknown   ";
  if (!reason.empty()) decision += " (" + reason + ")";
  const std::lock_guard<std::mutex> lock(mu_);
  told_this_poll_ = true;
  if (health == "unhealthy") ++seen_;
  std::fprintf(out_, "  %s poll  %s  %-34s %s\n", ClockText(clock_.Now()).c_str(), seen,
               decision.c_str(), transition.empty() ? "" : "-> outbox: one message");
}

int StoryLog::seen() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return seen_;
}

}  // namespace quell::demo
