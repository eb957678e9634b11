#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/mattermost/mattermost_settings.h"

namespace quell::channels {

// A `type: mattermost` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadMattermostSettings(ChannelReading& reading, MattermostSettings& out);

}  // namespace quell::channels
