#include "quell/cli/maintenance_command.h"

#include <optional>
#include <string_view>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/zones/date_zone_rules.h"
#include "quell/core/delivery/maintenance_window.h"
#include "quell/core/text/json_escape.h"

namespace quell::cli {
namespace {

constexpr int kUsageError = 2;

// The local reading as "YYYY-MM-DDTHH:MM:SS", without an offset: the zone is named beside it.
std::string LocalText(const core::ZoneRules& zones, std::string_view zone, core::WallTime at) {
  auto local = zones.ToLocal(zone, at);
  if (!local) return "";
  std::string text = core::FormatRfc3339(core::WallTime{local->time_since_epoch()});
  if (!text.empty() && text.back() == 'Z') text.pop_back();
  return text;
}

}  // namespace

int RunMaintenanceList(const MaintenanceListOptions& options, core::WallTime now, std::FILE* out,
                       std::FILE* err) {
  core::WallTime at = now;
  if (!options.at.empty()) {
    auto parsed = core::ParseRfc3339(options.at);
    if (!parsed) {
      std::fprintf(err, "quell maintenance list: --at: %s\n", parsed.error().message.c_str());
      return kUsageError;
    }
    at = *parsed;
  }
  auto config = config::LoadConfigForReplay(options.config_path, config::ProcessEnv());
  if (!config) {
    std::fprintf(err, "quell maintenance list: %s\n", config.error().message.c_str());
    return kUsageError;
  }
  const core::ZoneRules& zones = zones::SystemZoneRules();
  for (const core::MaintenanceWindow& window : config->maintenance) {
    auto active = core::WindowActiveAt(window, zones, at);
    auto span = core::CurrentOrNextSpan(window, zones, at);
    if (!active || !span) {
      std::fprintf(err, "quell maintenance list: %s: %s\n", window.name.c_str(),
                   (!active ? active.error() : span.error()).message.c_str());
      return kUsageError;
    }
    std::string line = "{\"name\":";
    core::AppendJsonString(line, window.name);
    line += ",\"time_zone\":";
    core::AppendJsonString(line, window.time_zone);
    line += *active ? ",\"active\":true" : ",\"active\":false";
    if (*span) {
      // The occurrence open now, else the next one.
      const core::WindowSpan& s = **span;
      line += ",\"start\":\"" + core::FormatRfc3339(s.start) + "\",\"start_local\":\"" +
              LocalText(zones, window.time_zone, s.start) + "\",\"end\":\"" +
              core::FormatRfc3339(s.end) + "\",\"end_local\":\"" +
              LocalText(zones, window.time_zone, s.end) + "\"";
    }
    line += "}\n";
    std::fputs(line.c_str(), out);
  }
  return 0;
}

}  // namespace quell::cli
