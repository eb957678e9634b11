#pragma once

#include <filesystem>

#include "quell/adapters/config/config.h"
#include "quell/adapters/config/yaml_reader.h"

namespace quell::config {

// Reads the `channels:` list into config.channels: each a name, a type and that type's
// settings, secrets by reference only (see ReadSecret).
void ReadChannels(MapReader& top, const std::filesystem::path& dir, Config& config);

// Reads the `dispatch:` section.
void ReadDispatch(MapReader section, Config& config);

// Every channel a condition routes to, and the dead-letter channel, must be configured; checked
// only when `channels:` is given, so a config that only polls needs none.
void CheckRoutes(MapReader& top, Config& config);

}  // namespace quell::config
