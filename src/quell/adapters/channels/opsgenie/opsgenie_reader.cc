#include "quell/adapters/channels/opsgenie/opsgenie_reader.h"

#include <string>

namespace quell::channels {

// Opsgenie's Alert API: the key is a credential, so only by reference.
void ReadOpsgenieSettings(ChannelReading& reading, OpsgenieSettings& out) {
  config::MapReader& item = reading.item;
  item.Read("api_url", out.api_url);
  reading.RequireUrl("api_url", out.api_url, {"http://", "https://"});
  out.api_key = reading.Secret("api_key", true);
  item.Read("source", out.source);
  if (out.source.empty() || out.source.size() > 100) {
    item.Fail("source", "expected 1 to 100 characters (default \"quell\")");
  }
}

}  // namespace quell::channels
