#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/opsgenie/opsgenie_settings.h"

namespace quell::channels {

// A `type: opsgenie` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadOpsgenieSettings(ChannelReading& reading, OpsgenieSettings& out);

}  // namespace quell::channels
