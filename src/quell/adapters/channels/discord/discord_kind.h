#pragma once

#include <cstddef>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/discord/discord_reader.h"

namespace quell::channels {

// `type: discord`, one entry of the channel registry (channel_registry.h).
struct DiscordKind {
  using Settings = DiscordSettings;
  static constexpr std::string_view kType = "discord";
  static constexpr size_t kGroupLimit = 10;
  static void Read(ChannelReading& reading, Settings& out) { ReadDiscordSettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (discord_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
};

}  // namespace quell::channels
