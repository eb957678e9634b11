#pragma once

#include <cstddef>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/google_chat/google_chat_reader.h"

namespace quell::channels {

// `type: google_chat`, one entry of the channel registry (channel_registry.h).
struct GoogleChatKind {
  using Settings = GoogleChatSettings;
  static constexpr std::string_view kType = "google_chat";
  static constexpr size_t kGroupLimit = 20;
  static void Read(ChannelReading& reading, Settings& out) { ReadGoogleChatSettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (google_chat_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
};

}  // namespace quell::channels
