#pragma once

#include <cstddef>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/mattermost/mattermost_reader.h"

namespace quell::channels {

// `type: mattermost`, one entry of the channel registry (channel_registry.h).
struct MattermostKind {
  using Settings = MattermostSettings;
  static constexpr std::string_view kType = "mattermost";
  static constexpr size_t kGroupLimit = 50;
  static void Read(ChannelReading& reading, Settings& out) { ReadMattermostSettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (mattermost_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
};

}  // namespace quell::channels
