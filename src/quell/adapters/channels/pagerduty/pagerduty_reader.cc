#include "quell/adapters/channels/pagerduty/pagerduty_reader.h"

#include <string>

namespace quell::channels {

void ReadPagerDutySettings(ChannelReading& reading, PagerDutySettings& out) {
  config::MapReader& item = reading.item;
  item.Read("url", out.base_url);
  reading.RequireUrl("url", out.base_url, {"http://", "https://"});
  out.routing_key = reading.Secret("routing_key", true);
  out.webhook_secret = reading.CallbackSecret("webhook_secret");
  item.Read("source", out.source);
  if (out.source.empty()) item.Fail("source", "must not be empty (default \"quell\")");
}

}  // namespace quell::channels
