#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "quell/adapters/channels/http_timeouts.h"

namespace quell::channels {

struct TeamsSettings {
  // The Workflows trigger URL ("When a Teams webhook request is received"); it carries its
  // signature (sig=...) in the query, so it is a credential.
  std::string url;
  HttpTimeouts timeouts;  // the builder's, from the channel's delivery settings
};

}  // namespace quell::channels
