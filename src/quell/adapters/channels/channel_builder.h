#pragma once

#include <optional>

#include "quell/adapters/channels/channel_build.h"
#include "quell/adapters/channels/channel_registry.h"
#include "quell/core/delivery/sms_policy.h"
#include "quell/core/result.h"

namespace quell::channels {

// The channel the settings' kind builds from them (kInvalidArgument, unlocated, when it
// cannot be built as configured).
core::Result<BuiltChannel> BuildChannel(const ChannelSettings& settings, const ChannelBuild& build);
// The pacing the channel's sends follow (SMS: interval, daily cap, quiet hours); nullopt: none.
std::optional<core::SmsPacingRules> PacingOf(const ChannelSettings& settings);

}  // namespace quell::channels
