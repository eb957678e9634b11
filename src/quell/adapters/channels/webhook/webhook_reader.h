#pragma once

#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/webhook/webhook_settings.h"

namespace quell::channels {

// A `type: webhook` channel's block (after the keys every channel shares), with its located
// messages, into `out`.
void ReadWebhookSettings(ChannelReading& reading, WebhookSettings& out);

}  // namespace quell::channels
