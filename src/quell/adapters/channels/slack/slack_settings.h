#pragma once

#include <cstdint>
#include <string>

#include "quell/adapters/channels/http_timeouts.h"

namespace quell::channels {

// `type: slack`: an incoming webhook, or a bot token posting with chat.postMessage.
struct SlackSettings {
  enum class Mode : uint8_t {
    kIncomingWebhook,  // POST to webhook_url; no threading, no remote id
    kBotToken,         // chat.postMessage / chat.update with a bot token; threads follow-ups
  };
  Mode mode = Mode::kIncomingWebhook;  // the reader's: which of the two credentials is given
  std::string webhook_url;  // kIncomingWebhook: the hook's URL, a credential (webhook_url_env)
  std::string api_base_url = "https://slack.com/api";  // kBotToken (api_url)
  std::string token;    // kBotToken: "xoxb-..." (bot_token_env / _file), header only
  std::string channel;  // kBotToken: channel id
  // kBotToken, resolve with a known root: true edits the root message (chat.update) so the
  // channel shows the incident resolved; false posts the resolve as a thread reply.
  bool resolve_updates_root = true;
  // The Slack app's signing secret (`signing_secret_env` / `_file`). When set, opens and
  // renotifies end with an "Acknowledge" button (action_id quell_ack, value
  // "<key>:<generation>", or a group message's episode key "{group:<channel>:<episode>}:<group
  // key>", core/delivery/callback_key.h) whose clicks Slack posts to quell's
  // /v1/slack/interactivity, which checks them against it.
  std::string signing_secret;
  HttpTimeouts timeouts;  // the builder's, from the channel's delivery settings
};

}  // namespace quell::channels
