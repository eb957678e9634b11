#pragma once

#include <memory>
#include <string>

#include "quell/adapters/channels/http_channel_support.h"
#include "quell/adapters/channels/teams/teams_settings.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

// Microsoft Teams through a Workflows webhook: POST <url> with one Adaptive Card (version 1.4)
// in a "message" envelope, which the flow's "Post card in a chat or channel" step posts. The
// card holds the subject as its title, the body one TextBlock per line, and a FactSet with the
// key, transition, severity and outbox key; it is kept under Teams' 28 KB message limit. 202
// (or any 2xx) is sent, without a remote id: a Workflows trigger answers before it posts and
// tells no message id, so nothing threads. Workflows take no idempotency key: a retry after a
// lost answer posts a second card (the outbox key in its facts shows it is a twin).
class TeamsChannel : public core::HttpChannel {
 public:
  static core::Result<std::unique_ptr<TeamsChannel>> Create(TeamsSettings settings);

  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override;
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override;

 private:
  explicit TeamsChannel(TeamsSettings settings) : settings_(std::move(settings)) {}
  TeamsSettings settings_;
};

// The Adaptive Card (the attachment's content) for `delivery`, for tests and the docs.
std::string TeamsCardJson(const core::Delivery& delivery);

}  // namespace quell::channels
