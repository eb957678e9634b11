#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/ntfy/ntfy_settings.h"

namespace quell::channels {

// A `type: ntfy` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadNtfySettings(ChannelReading& reading, NtfySettings& out);

}  // namespace quell::channels
