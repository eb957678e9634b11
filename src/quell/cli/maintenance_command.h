#pragma once

#include <cstdio>
#include <string>

#include "quell/core/text/time.h"

namespace quell::cli {

struct MaintenanceListOptions {
  std::string config_path = "quell.yaml";
  std::string at;  // RFC 3339; empty: now
};

// `quell maintenance list`: one JSON line per configured window, whether it is open at the
// time asked (now by default) and its current or next occurrence in UTC and local time; the
// objects GET /v1/maintenance lists (text_output::MaintenanceWindowJson).
// Returns the exit code.
int RunMaintenanceList(const MaintenanceListOptions& options, core::WallTime now, std::FILE* out,
                       std::FILE* err);

}  // namespace quell::cli
