#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/email/email_settings.h"

namespace quell::channels {

// A `type: email` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadEmailSettings(ChannelReading& reading, email::EmailSettings& out);

}  // namespace quell::channels
