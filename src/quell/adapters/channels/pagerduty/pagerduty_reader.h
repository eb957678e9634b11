#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/pagerduty/pagerduty_settings.h"

namespace quell::channels {

// A `type: pagerduty` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadPagerDutySettings(ChannelReading& reading, PagerDutySettings& out);

}  // namespace quell::channels
