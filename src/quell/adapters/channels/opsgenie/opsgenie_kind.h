#pragma once

#include <cstddef>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/opsgenie/opsgenie_reader.h"

namespace quell::channels {

// `type: opsgenie`, one entry of the channel registry (channel_registry.h).
struct OpsgenieKind {
  using Settings = OpsgenieSettings;
  static constexpr std::string_view kType = "opsgenie";
  static constexpr size_t kGroupLimit = 20;
  static void Read(ChannelReading& reading, Settings& out) { ReadOpsgenieSettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (opsgenie_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
};

}  // namespace quell::channels
