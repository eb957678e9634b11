#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/teams/teams_settings.h"

namespace quell::channels {

// A `type: teams` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadTeamsSettings(ChannelReading& reading, TeamsSettings& out);

}  // namespace quell::channels
