#pragma once

#include <cstddef>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/teams/teams_reader.h"

namespace quell::channels {

// `type: teams`, one entry of the channel registry (channel_registry.h).
struct TeamsKind {
  using Settings = TeamsSettings;
  static constexpr std::string_view kType = "teams";
  static constexpr size_t kGroupLimit = 20;
  static void Read(ChannelReading& reading, Settings& out) { ReadTeamsSettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (teams_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
};

}  // namespace quell::channels
