#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/telegram/telegram_settings.h"

namespace quell::channels {

// A `type: telegram` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadTelegramSettings(ChannelReading& reading, TelegramSettings& out);

}  // namespace quell::channels
