#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/google_chat/google_chat_settings.h"

namespace quell::channels {

// A `type: google_chat` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadGoogleChatSettings(ChannelReading& reading, GoogleChatSettings& out);

}  // namespace quell::channels
