#pragma once

#include <memory>
#include <string>

#include "quell/adapters/channels/http_channel_support.h"
#include "quell/adapters/channels/ntfy/ntfy_settings.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

// ntfy, published in its JSON form (POST to the server's root with {"topic", "title",
// "message", "priority", "tags", "click"}), so titles and texts travel as UTF-8 JSON rather
// than as headers. Priority follows severity (critical and fatal 5, error 4, warning 3, info 2;
// a resolve 2), tags are the severity's emoji and its word. The answer's message id is the
// remote id. ntfy has no idempotency key and no threads: a retried publish after a lost answer
// is a second notification.
class NtfyChannel : public core::HttpChannel {
 public:
  static core::Result<std::unique_ptr<NtfyChannel>> Create(NtfySettings settings);

  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override;
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override;

 private:
  explicit NtfyChannel(NtfySettings settings) : settings_(std::move(settings)) {}
  NtfySettings settings_;
  std::string publish_url_;  // the server root the JSON form is posted to
  std::string topic_;
};

// ntfy's priority (1-5) for a message of `severity`; a resolve is 2 whatever its severity.
int NtfyPriority(std::string_view severity, bool resolve);

}  // namespace quell::channels
