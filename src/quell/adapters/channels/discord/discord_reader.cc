#include "quell/adapters/channels/discord/discord_reader.h"

#include <string>

namespace quell::channels {

void ReadDiscordSettings(ChannelReading& reading, DiscordSettings& out) {
  config::MapReader& item = reading.item;
  out.url = reading.CredentialUrl();
  item.Read("username", out.username);
  item.Read("avatar_url", out.avatar_url);
  if (!out.avatar_url.empty()) {
    reading.RequireUrl("avatar_url", out.avatar_url, {"http://", "https://"});
  }
  // Where the URL was given, for the two checks of its value below.
  const char* given = item.Has("url") ? "url" : item.Has("url_env") ? "url_env" : "url_file";
  if (out.url.find('#') != std::string::npos) {
    item.Fail(given, "a Discord webhook URL has no fragment (#...)");
  }
  const size_t query = out.url.find('?');
  if (query != std::string::npos &&
      ("&" + out.url.substr(query + 1)).find("&wait=") != std::string::npos) {
    item.Fail(given, "must not set wait: quell adds wait=true to learn the message id");
  }
}

}  // namespace quell::channels
