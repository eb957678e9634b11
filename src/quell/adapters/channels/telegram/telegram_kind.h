#pragma once

#include <cstddef>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/telegram/telegram_reader.h"

namespace quell::channels {

// `type: telegram`, one entry of the channel registry (channel_registry.h).
struct TelegramKind {
  using Settings = TelegramSettings;
  static constexpr std::string_view kType = "telegram";
  static constexpr size_t kGroupLimit = 10;
  static void Read(ChannelReading& reading, Settings& out) { ReadTelegramSettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (telegram_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
};

}  // namespace quell::channels
