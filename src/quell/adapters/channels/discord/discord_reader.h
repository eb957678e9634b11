#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/discord/discord_settings.h"

namespace quell::channels {

// A `type: discord` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadDiscordSettings(ChannelReading& reading, DiscordSettings& out);

}  // namespace quell::channels
