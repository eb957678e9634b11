#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "quell/adapters/channels/http_timeouts.h"

namespace quell::channels {

struct DiscordSettings {
  // The webhook URL, https://discord.com/api/webhooks/<id>/<token>[?thread_id=...]; the token
  // in its path is the credential.
  std::string url;
  std::string username;    // overrides the webhook's name when set
  std::string avatar_url;  // overrides the webhook's avatar when set
  HttpTimeouts timeouts;   // the builder's, from the channel's delivery settings
};

}  // namespace quell::channels
