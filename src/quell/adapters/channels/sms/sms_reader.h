#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/sms/sms_settings.h"

namespace quell::channels {

// A `type: sms` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadSmsSettings(ChannelReading& reading, SmsSettings& out);

}  // namespace quell::channels
