#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "quell/adapters/channels/http_timeouts.h"

namespace quell::channels {

struct MattermostSettings {
  // The incoming webhook, https://<server>/hooks/<key>; the key is the credential.
  std::string url;
  std::string username;   // shown as the poster when the server lets integrations override it
  std::string icon_url;   // likewise the profile picture
  HttpTimeouts timeouts;  // the builder's, from the channel's delivery settings
};

}  // namespace quell::channels
