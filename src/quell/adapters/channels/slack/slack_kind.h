#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/slack/slack_reader.h"

namespace quell::channels {

// `type: slack`, one entry of the channel registry (channel_registry.h).
struct SlackKind {
  using Settings = SlackSettings;
  static constexpr std::string_view kType = "slack";
  static constexpr size_t kGroupLimit = 20;
  static void Read(ChannelReading& reading, Settings& out) { ReadSlackSettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (slack_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
  // Acknowledge clicks, signed with the app's signing secret.
  static constexpr CallbackRoute kCallback = CallbackRoute::kSlackInteractivity;
  static const std::string& CallbackSecret(const Settings& settings) {
    return settings.signing_secret;
  }
};

}  // namespace quell::channels
