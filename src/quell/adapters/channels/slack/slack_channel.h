#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "quell/adapters/channels/http_channel_support.h"
#include "quell/adapters/channels/slack/slack_settings.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

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
