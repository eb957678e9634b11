#pragma once

#include <cstddef>
#include <string>

#include "quell/adapters/channels/http_timeouts.h"

namespace quell::channels {

// `type: pagerduty`: Events API v2.
struct PagerDutySettings {
  std::string base_url = "https://events.pagerduty.com";  // the `url` key
  std::string routing_key;  // the integration key of an Events API v2 integration
  // payload.source: where PagerDuty shows the alert came from; the incident key when empty
  // (the config refuses an empty one).
  std::string source = "quell";
  // The v3 webhook subscription's signing secret (`webhook_secret_env` / `_file`): PagerDuty's
  // acks and resolves of quell's alerts then reach quell at POST /v1/pagerduty/webhook.
  std::string webhook_secret;
  HttpTimeouts timeouts;   // the builder's, from the channel's delivery settings
  size_t group_limit = 5;  // the builder's: members a group alert's custom_details lists
};

}  // namespace quell::channels
