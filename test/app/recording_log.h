#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "quell/core/ports/event_log.h"

namespace quell::testing {

// An EventLog that keeps every event with its fields as text, for tests to look up by name.
class RecordingLog : public core::EventLog {
 public:
  void Log(core::LogLevel /*level*/, std::string_view event,
           std::initializer_list<core::LogField> fields) override {
    std::map<std::string, std::string> line;
    for (const core::LogField& f : fields) line[std::string(f.name)] = std::string(f.value);
    const std::lock_guard lock(mu_);
    events_.emplace_back(std::string(event), std::move(line));
  }
  std::vector<std::map<std::string, std::string>> Named(const std::string& name) {
    const std::lock_guard lock(mu_);
    std::vector<std::map<std::string, std::string>> found;
    for (const auto& [event, fields] : events_) {
      if (event == name) found.push_back(fields);
    }
    return found;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> events_;
};

}  // namespace quell::testing
