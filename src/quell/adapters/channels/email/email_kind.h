#pragma once

#include <cstddef>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/email/email_reader.h"

namespace quell::channels {

// `type: email`, one entry of the channel registry (channel_registry.h).
struct EmailKind {
  using Settings = email::EmailSettings;
  static constexpr std::string_view kType = "email";
  static constexpr size_t kGroupLimit = 50;
  static void Read(ChannelReading& reading, Settings& out) { ReadEmailSettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (email_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
};

}  // namespace quell::channels
