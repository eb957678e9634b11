#include "quell/adapters/channels/slack/slack_reader.h"

#include <string>

namespace quell::channels {

void ReadSlackSettings(ChannelReading& reading, SlackSettings& out) {
  config::MapReader& item = reading.item;
  const bool hook = item.Has("webhook_url_env") || item.Has("webhook_url_file");
  const bool bot = item.Has("bot_token_env") || item.Has("bot_token_file");
  out.webhook_url = reading.Secret("webhook_url", hook);
  out.token = reading.Secret("bot_token", bot);
  out.mode = bot ? SlackSettings::Mode::kBotToken : SlackSettings::Mode::kIncomingWebhook;
  item.Read("channel", out.channel);
  item.Read("api_url", out.api_base_url);
  item.Read("resolve_updates_root", out.resolve_updates_root);
  out.signing_secret = reading.CallbackSecret("signing_secret");
  if (hook == bot) {
    item.Fail("",
              "give exactly one of webhook_url_env/_file (incoming webhook) or "
              "bot_token_env/_file (bot token)");
  } else if (bot && out.channel.empty()) {
    item.Fail("channel", "a bot token needs the channel id to post to");
  }
}

}  // namespace quell::channels
