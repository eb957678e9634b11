#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "quell/adapters/channels/http_timeouts.h"

namespace quell::channels {

struct OpsgenieSettings {
  // https://api.opsgenie.com, or https://api.eu.opsgenie.com for an EU account (keys of one
  // region are refused by the other).
  std::string api_url = "https://api.opsgenie.com";
  std::string api_key;  // an API integration's key, sent as "Authorization: GenieKey <key>"
  std::string source = "quell";  // the alert's source field
  HttpTimeouts timeouts;         // the builder's, from the channel's delivery settings
};

}  // namespace quell::channels
