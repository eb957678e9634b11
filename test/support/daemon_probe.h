#pragma once

// What the `quell run` end-to-end tests read from a running daemon: its JSON log lines and
// its HTTP surface; and the one environment write they need before starting it.
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"

namespace quell::testing {

inline void SetEnv(const char* name, const std::string& value) {
  setenv(name, value.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
}

// The JSON log lines of `log` whose event is `event`.
inline std::vector<nlohmann::json> Events(const std::filesystem::path& log,
                                          const std::string& event) {
  std::vector<nlohmann::json> events;
  std::istringstream in(ReadFile(log));
  for (std::string line; std::getline(in, line);) {
    auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object() && parsed.value("event", "") == event) events.push_back(parsed);
  }
  return events;
}

// GET `path` on the daemon's loopback port: the status, or -1 when nothing answered in time.
inline int HttpGet(int port, const std::string& path, std::string* body = nullptr,
                   std::chrono::seconds read_timeout = std::chrono::seconds(1)) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(1, 0);
  client.set_read_timeout(read_timeout.count(), 0);
  auto r = client.Get(path.c_str());
  if (!r) return -1;
  if (body != nullptr) *body = r->body;
  return r->status;
}

}  // namespace quell::testing
