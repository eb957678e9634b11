#pragma once

#include <filesystem>
#include <string>

#include "quell/adapters/config/config.h"
#include "quell/adapters/config/config_names.h"
#include "quell/adapters/config/yaml_reader.h"

namespace quell::config {

// Reads the `channels:` list into config.channels: each a name, the delivery settings every
// type shares, a type and that type's settings, read by the type's reader from the channel
// registry (adapters/channels/channel_registry.h); secrets by reference only (see ReadSecret).
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
