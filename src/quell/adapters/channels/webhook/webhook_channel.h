#pragma once

#include <memory>
#include <string>

#include "quell/adapters/channels/http_channel_support.h"
#include "quell/adapters/channels/webhook/webhook_settings.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

// POSTs the versioned JSON body of docs/channels.md ("version": 1), signed unless told not to
// (see webhook_signature.h), with Idempotency-Key: <outbox key> so a receiver can drop a retried
// duplicate. 2xx is sent (no remote id); statuses classify as ClassifyHttpStatus says.
class WebhookChannel : public core::HttpChannel {
 public:
  // kInvalidArgument naming the bad setting (never quoting the secret).
  static core::Result<std::unique_ptr<WebhookChannel>> Create(WebhookSettings settings);

  // kInvalidArgument when the row's payload is not a JSON object.
  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override;
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override;

 private:
  explicit WebhookChannel(WebhookSettings settings) : settings_(std::move(settings)) {}
  WebhookSettings settings_;
};

// The version 1 body for `delivery`, compact; exposed for receivers' tests and the docs. A group
// message's body has "kind":"group", "incident":null, the group ("key", "channel", "sequence",
// "labels", "counts", "open_after", "members_more") and "members", the first `group_limit`
// member snapshots.
core::Result<std::string> WebhookBody(const core::Delivery& delivery, size_t group_limit = 1000);

}  // namespace quell::channels
