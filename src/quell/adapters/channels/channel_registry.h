#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/adapters/channels/channel_kind.h"
#include "quell/adapters/channels/channel_reading.h"
#include "quell/adapters/channels/discord/discord_kind.h"
#include "quell/adapters/channels/email/email_kind.h"
#include "quell/adapters/channels/google_chat/google_chat_kind.h"
#include "quell/adapters/channels/mattermost/mattermost_kind.h"
#include "quell/adapters/channels/ntfy/ntfy_kind.h"
#include "quell/adapters/channels/opsgenie/opsgenie_kind.h"
#include "quell/adapters/channels/pagerduty/pagerduty_kind.h"
#include "quell/adapters/channels/slack/slack_kind.h"
#include "quell/adapters/channels/sms/sms_kind.h"
#include "quell/adapters/channels/teams/teams_kind.h"
#include "quell/adapters/channels/telegram/telegram_kind.h"
#include "quell/adapters/channels/webhook/webhook_kind.h"

namespace quell::channels {

// Every channel type quell delivers to, one kind each (adapters/channels/<type>/): its YAML
// `type:`, settings, reader, builder and default group_limit. The loader reads a channel's
// block through it, the wiring builds the channel through it; nothing else names the types.
// Adding a channel: a folder and one entry here (docs/channels.md, "Adding a channel"). The
// order is the one `type:`'s error message lists.
using ChannelKinds =
    KindList<WebhookKind, SlackKind, EmailKind, SmsKind, PagerDutyKind, OpsgenieKind,
             GoogleChatKind, NtfyKind, TelegramKind, TeamsKind, DiscordKind, MattermostKind>;

// One channel's type-specific settings (ChannelConfig::settings).
using ChannelSettings = ChannelKinds::Settings;

// Every kind's `type:` name, in the table's order.
std::vector<std::string_view> ChannelTypeNames();
// The `type:` name of the kind whose settings these are.
std::string_view ChannelTypeOf(const ChannelSettings& settings);
// The settings of the kind named `type`, read by its reader (its problems reported on
// `reading.item`); nullopt when no kind has that name.
std::optional<ChannelSettings> ReadChannelSettings(std::string_view type, ChannelReading& reading);
// Members a group message on such a channel lists when its group_limit is not set.
size_t DefaultGroupLimitOf(const ChannelSettings& settings);
// The secret with which the channel's provider signs its calls to `route`; empty when the
// channel has none or its kind answers another route.
std::string CallbackSecretOf(const ChannelSettings& settings, CallbackRoute route);
// The most SMS segments a message on the channel may take; nullopt: not an SMS channel.
std::optional<uint32_t> MaxSegmentsOf(const ChannelSettings& settings);

}  // namespace quell::channels
