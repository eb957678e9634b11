#pragma once

#include <cstddef>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/webhook/webhook_reader.h"

namespace quell::channels {

// `type: webhook`, one entry of the channel registry (channel_registry.h).
struct WebhookKind {
  using Settings = WebhookSettings;
  static constexpr std::string_view kType = "webhook";
  static constexpr size_t kGroupLimit = 1000;
  static void Read(ChannelReading& reading, Settings& out) { ReadWebhookSettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (webhook_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
};

}  // namespace quell::channels
