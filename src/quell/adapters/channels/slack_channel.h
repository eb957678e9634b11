#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "quell/adapters/channels/http_channel_support.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

struct SlackSettings {
  enum class Mode : uint8_t {
    kIncomingWebhook,  // POST to webhook_url; no threading, no remote id
    kBotToken,         // chat.postMessage / chat.update with a bot token; threads follow-ups
  };
  Mode mode = Mode::kIncomingWebhook;
  std::string webhook_url;                             // kIncomingWebhook: the hook's URL
  std::string api_base_url = "https://slack.com/api";  // kBotToken
  std::string token;                                   // kBotToken: "xoxb-...", header only
  std::string channel;                                 // kBotToken: channel id
  // kBotToken, resolve with a known root: true edits the root message (chat.update) so the
  // channel shows the incident resolved; false posts the resolve as a thread reply.
  bool resolve_updates_root = true;
  // Opens and renotifies end with an "Acknowledge" button (action_id quell_ack, value
  // "<key>:<generation>", or a group message's episode key "{group:<channel>:<episode>}:<group
  // key>", core/delivery/callback_key.h) whose clicks
  // Slack posts to quell's /v1/slack/interactivity; set when the channel has a signing secret.
  bool ack_button = false;
  HttpTimeouts timeouts;
};

// Slack. Bot mode: the open is a chat.postMessage whose ts becomes the remote id; a renotify
// replies in its thread (thread_ts = thread_remote_id); a resolve edits the root (or replies,
// see resolve_updates_root); with no known root, follow-ups are new top-level messages. The
// outbox key travels as message metadata, since Slack has no idempotency key. Slack's
// {"ok":false,"error":...} answers decode: ratelimited and Slack's own failures retry,
// the rest (invalid_auth, channel_not_found, ...) are permanent.
class SlackChannel : public core::HttpChannel {
 public:
  static core::Result<std::unique_ptr<SlackChannel>> Create(SlackSettings settings);

  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override;
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override;

 private:
  explicit SlackChannel(SlackSettings settings) : settings_(std::move(settings)) {}
  SlackSettings settings_;
};

}  // namespace quell::channels
