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
  // Click action. Empty: no Click.
  std::string link_prefix;
  HttpTimeouts timeouts;
};

}  // namespace quell::channels
