#pragma once

#include <cstddef>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/ntfy/ntfy_reader.h"

namespace quell::channels {

// `type: ntfy`, one entry of the channel registry (channel_registry.h).
struct NtfyKind {
  using Settings = NtfySettings;
  static constexpr std::string_view kType = "ntfy";
  static constexpr size_t kGroupLimit = 5;
  static void Read(ChannelReading& reading, Settings& out) { ReadNtfySettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (ntfy_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
};

}  // namespace quell::channels
