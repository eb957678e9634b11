#pragma once

#include <filesystem>

#include "quell/adapters/config/config.h"
#include "quell/adapters/config/yaml_reader.h"

namespace quell::config {

// The sections only the daemon reads: `http:`, `heartbeat:`, `log:` and `polling:`. Absent sections
// keep their defaults.
void ReadDaemonSections(MapReader& top, const std::filesystem::path& dir, Config& config);

}  // namespace quell::config
