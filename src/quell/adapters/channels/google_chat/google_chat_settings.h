#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "quell/adapters/channels/http_timeouts.h"

namespace quell::channels {

struct GoogleChatSettings {
  // The space's incoming-webhook URL, "https://chat.googleapis.com/v1/spaces/<space>/messages
  // ?key=<key>&token=<token>": the key and token make it a credential.
  std::string url;
  HttpTimeouts timeouts;  // the builder's, from the channel's delivery settings
};

}  // namespace quell::channels
