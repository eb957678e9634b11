#pragma once

#include <filesystem>
#include <string>

#include "quell/adapters/config/config.h"
#include "quell/adapters/config/yaml_reader.h"

namespace quell::config {

// A condition or channel name: 1 to 100 letters, digits, '-', '_' or '.'.
bool IsConfigName(const std::string& name);
// One of the message severities: critical, error, warning, info.
bool IsSeverity(const std::string& severity);

// Reads the `channels:` list into config.channels: each a name, a type and that type's
// settings, secrets by reference only (see ReadSecret).
void ReadChannels(MapReader& top, const std::filesystem::path& dir, Config& config);

// Reads the `dispatch:` section.
void ReadDispatch(MapReader section, Config& config);

// Every channel a condition routes to, and the dead-letter channel, must be configured; checked
// only when `channels:` is given, so a config that only polls needs none.
void CheckRoutes(MapReader& top, Config& config);

// Reads the top-level `meta_channels:` (where source-health incidents go): each must be in
// `channels`, whether `channels:` is given or not, since a name there is a promise of a page.
void ReadMetaChannels(MapReader& top, Config& config);

}  // namespace quell::config
