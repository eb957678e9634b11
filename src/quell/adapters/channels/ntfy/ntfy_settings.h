#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "quell/adapters/channels/http_timeouts.h"

namespace quell::channels {

struct NtfySettings {
  std::string url;    // the topic URL, "https://ntfy.sh/<topic>" or a self-hosted server's
  std::string token;  // an access token ("tk_..."), sent as Authorization: Bearer; may be empty
  // The incident link's start (the key, percent-encoded, is appended): the notification's
  // Click action. Empty: no Click. The builder's, from dispatch.link_base or http.public_url.
  std::string link_prefix;
  HttpTimeouts timeouts;  // the builder's, from the channel's delivery settings
};

}  // namespace quell::channels
