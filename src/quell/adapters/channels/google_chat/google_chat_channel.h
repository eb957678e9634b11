#pragma once

#include <memory>
#include <string>

#include "quell/adapters/channels/google_chat/google_chat_settings.h"
#include "quell/adapters/channels/http_channel_support.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

// Google Chat incoming webhook (spaces.messages.create). Every message of one incident
// generation goes to one thread: thread.threadKey is "<key>:<generation>" (a group message's
// row key), with messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD so the open starts it
// and follow-ups reply in it. requestId, derived from the outbox idempotency key, makes a
// retried create return the message the first attempt made instead of a second one. The
// answer's Message name ("spaces/.../messages/...") is the remote id.
class GoogleChatChannel : public core::HttpChannel {
 public:
  static core::Result<std::unique_ptr<GoogleChatChannel>> Create(GoogleChatSettings settings);

  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override;
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override;

 private:
  explicit GoogleChatChannel(GoogleChatSettings settings) : settings_(std::move(settings)) {}
  GoogleChatSettings settings_;
  std::string label_url_;  // the URL without its query, for error messages
};

// The requestId for an outbox idempotency key: a UUID-shaped digest of it (Google recommends
// a UUID; the key's own characters and length are not all accepted), the same on every retry.
std::string GoogleChatRequestId(std::string_view idempotency_key);

}  // namespace quell::channels
