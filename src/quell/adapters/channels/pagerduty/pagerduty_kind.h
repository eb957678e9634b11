#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/pagerduty/pagerduty_reader.h"

namespace quell::channels {

// `type: pagerduty`, one entry of the channel registry (channel_registry.h).
struct PagerDutyKind {
  using Settings = PagerDutySettings;
  static constexpr std::string_view kType = "pagerduty";
  static constexpr size_t kGroupLimit = 5;
  static void Read(ChannelReading& reading, Settings& out) { ReadPagerDutySettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (pagerduty_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
  // PagerDuty's webhook (acks and resolves made there), signed with the subscription's secret.
  static constexpr CallbackRoute kCallback = CallbackRoute::kPagerDutyWebhook;
  static const std::string& CallbackSecret(const Settings& settings) {
    return settings.webhook_secret;
  }
};

}  // namespace quell::channels
