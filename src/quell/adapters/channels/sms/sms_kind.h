#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/sms/sms_reader.h"
#include "quell/core/delivery/sms_policy.h"

namespace quell::channels {

// `type: sms`, one entry of the channel registry (channel_registry.h).
struct SmsKind {
  using Settings = SmsSettings;
  static constexpr std::string_view kType = "sms";
  static constexpr size_t kGroupLimit = 3;
  static void Read(ChannelReading& reading, Settings& out) { ReadSmsSettings(reading, out); }
  // The channel, its timeouts (and group limit, link prefix) from `build` (twilio_sms_channel.cc).
  static core::Result<BuiltChannel> Build(Settings settings, const ChannelBuild& build);
  // The recipient's pacing: interval, daily cap, quiet hours (sms_pacing.cc).
  static std::optional<core::SmsPacingRules> Pacing(const Settings& settings);
  static uint32_t MaxSegments(const Settings& settings) { return settings.max_segments; }
};

}  // namespace quell::channels
