#include "quell/cli/maintenance_command.h"

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/text_output/maintenance_json.h"
#include "quell/adapters/zones/date_zone_rules.h"

namespace quell::cli {
namespace {

constexpr int kUsageError = 2;

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
    auto line = text_output::MaintenanceWindowJson(window, zones, at);
    if (!line) {
      std::fprintf(err, "quell maintenance list: %s: %s\n", window.name.c_str(),
                   line.error().message.c_str());
      return kUsageError;
    }
    *line += '\n';
    std::fputs(line->c_str(), out);
  }
  return 0;
}

}  // namespace quell::cli
