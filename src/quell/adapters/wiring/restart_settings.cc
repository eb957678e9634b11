#include "quell/adapters/wiring/restart_settings.h"

namespace quell::wiring {
namespace {

using config::Config;

struct RestartOnly {
  const char* name;
  bool (*differs)(const Config& started, const Config& next);
};

// The store is compared apart: --store overrides it.
constexpr RestartOnly kRestartOnly[] = {
    {"http.listen",
     [](const Config& a, const Config& b) { return a.http.listen != b.http.listen; }},
    // The token read through token_env or token_file: a new value there counts too.
    {"http.token", [](const Config& a, const Config& b) { return a.http.token != b.http.token; }},
    {"http.token_name",
     [](const Config& a, const Config& b) { return a.http.token_name != b.http.token_name; }},
    {"http.open_reads",
     [](const Config& a, const Config& b) { return a.http.open_reads != b.http.open_reads; }},
    {"log.format", [](const Config& a, const Config& b) { return a.log.format != b.log.format; }},
    {"log.level", [](const Config& a, const Config& b) { return a.log.level != b.log.level; }},
    {"heartbeat.url",
     [](const Config& a, const Config& b) { return a.heartbeat.url != b.heartbeat.url; }},
    {"heartbeat.timeout",
     [](const Config& a, const Config& b) { return a.heartbeat.timeout != b.heartbeat.timeout; }},
    {"heartbeat.max_attempts",
     [](const Config& a, const Config& b) {
       return a.heartbeat.max_attempts != b.heartbeat.max_attempts;
     }},
};

}  // namespace

const std::vector<std::string>& RestartOnlySettings() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names = {"store"};
    for (const RestartOnly& setting : kRestartOnly) names.emplace_back(setting.name);
    return names;
  }();
  return kNames;
}

std::vector<std::string> SettingsNeedingRestart(const Config& started, const Config& next,
                                                bool store_override) {
  std::vector<std::string> out;
  if (!store_override && started.store_url != next.store_url) out.emplace_back("store");
  for (const RestartOnly& setting : kRestartOnly) {
    if (setting.differs(started, next)) out.emplace_back(setting.name);
  }
  return out;
}

}  // namespace quell::wiring
