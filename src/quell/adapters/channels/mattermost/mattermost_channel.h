#pragma once

#include <memory>
#include <string>

#include "quell/adapters/channels/http_channel_support.h"
#include "quell/adapters/channels/mattermost/mattermost_settings.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

// A Mattermost incoming webhook: POST <url> {"text": "**subject**\n<body>", "props": {the
// outbox key, the incident key and transition}, optional "username" and "icon_url"}. The text
// is Markdown, cut to 16383 characters (a longer text Mattermost would split into several
// posts), and "@channel", "@all" and "@here" in it are defused with a zero-width space, so an
// error text cannot notify a whole channel. Mattermost answers 200 "ok"; no remote id, no
// threading (a webhook cannot reply to a post it does not know). Webhooks have no idempotency
// key: a retry after a lost answer is a second post, its props carrying the same outbox key.
class MattermostChannel : public core::HttpChannel {
 public:
  static core::Result<std::unique_ptr<MattermostChannel>> Create(MattermostSettings settings);

  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override;
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override;

 private:
  MattermostChannel(MattermostSettings settings, std::string key)
      : settings_(std::move(settings)), key_(std::move(key)) {}
  MattermostSettings settings_;
  std::string key_;  // the hook's key (the URL's last path segment), scrubbed from errors
};

// `text` with every "@channel", "@all" and "@here" (Mattermost's channel-wide mentions) broken
// by a zero-width space after the "@".
std::string DefuseChannelMentions(std::string_view text);

}  // namespace quell::channels
