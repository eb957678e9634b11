#pragma once

#include <memory>
#include <string>

#include "quell/adapters/channels/discord/discord_settings.h"
#include "quell/adapters/channels/http_channel_support.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

// Discord's Execute Webhook: POST <url>?wait=true (appended to a query the URL already has, such
// as thread_id), so Discord answers 200 with the created message, whose `id` becomes the remote
// id. The message: `content` the subject (at most 2000 characters), one embed with the body as
// its description (at most 4096, cut at a line end), a colour by severity and a footer with the
// outbox key; `allowed_mentions` parses nothing, so an "@everyone" in an error text pings no
// one. Webhooks cannot reply to a message (Execute Webhook takes no message_reference), so a
// follow-up is a new message whose footer names the open's message id. 429 is retried after
// Retry-After, else the body's retry_after. Discord has no idempotency key: a retry after a lost
// answer posts a second message, its footer showing the same outbox key.
class DiscordChannel : public core::HttpChannel {
 public:
  // kInvalidArgument for a URL that is not http(s), has a fragment, or sets wait itself.
  static core::Result<std::unique_ptr<DiscordChannel>> Create(DiscordSettings settings);

  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override;
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override;

 private:
  DiscordChannel(DiscordSettings settings, std::string post_url, std::string token)
      : settings_(std::move(settings)), post_url_(std::move(post_url)), token_(std::move(token)) {}
  DiscordSettings settings_;
  std::string post_url_;  // url with wait=true
  std::string token_;     // the URL's last path segment, scrubbed from error texts
};

// `url` with `param` ("wait=true") added to its query: "?param" without one, "&param" with one.
std::string AppendQueryParameter(std::string_view url, std::string_view param);

}  // namespace quell::channels
