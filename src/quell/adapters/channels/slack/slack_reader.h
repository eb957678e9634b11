#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/slack/slack_settings.h"

namespace quell::channels {

// A `type: slack` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadSlackSettings(ChannelReading& reading, SlackSettings& out);

}  // namespace quell::channels
