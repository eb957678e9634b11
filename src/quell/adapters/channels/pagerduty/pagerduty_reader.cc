#include "quell/adapters/channels/pagerduty/pagerduty_reader.h"

#include <string>
#include <string_view>

namespace quell::channels {

void ReadPagerDutySettings(ChannelReading& reading, PagerDutySettings& out) {
  config::MapReader& item = reading.item;
  item.Read("url", out.base_url);
  reading.RequireUrl("url", out.base_url, {"http://", "https://"});
  // PagerDuty documents the endpoint itself (https://events.pagerduty.com/v2/enqueue), which is
  // what a user copies: it names the same base, not a base under which to post /v2/enqueue again.
  for (std::string_view tail : {"/v2/enqueue/", "/v2/enqueue", "/"}) {
    if (out.base_url.ends_with(tail)) {
      out.base_url.resize(out.base_url.size() - tail.size());
      break;
    }
  }
  out.routing_key = reading.Secret("routing_key", true);
  out.webhook_secret = reading.CallbackSecret("webhook_secret");
  item.Read("source", out.source);
  if (out.source.empty()) item.Fail("source", "must not be empty (default \"quell\")");
}

}  // namespace quell::channels
