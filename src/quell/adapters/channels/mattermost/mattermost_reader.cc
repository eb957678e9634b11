#include "quell/adapters/channels/mattermost/mattermost_reader.h"

#include <string>

namespace quell::channels {

void ReadMattermostSettings(ChannelReading& reading, MattermostSettings& out) {
  config::MapReader& item = reading.item;
  out.url = reading.CredentialUrl();
  item.Read("username", out.username);
  item.Read("icon_url", out.icon_url);
  if (!out.icon_url.empty()) reading.RequireUrl("icon_url", out.icon_url, {"http://", "https://"});
}

}  // namespace quell::channels
