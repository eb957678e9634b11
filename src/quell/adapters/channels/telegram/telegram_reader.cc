#include "quell/adapters/channels/telegram/telegram_reader.h"

#include <cctype>
#include <string>

namespace quell::channels {
namespace {

// A user's or group's numeric id ("-100..." for supergroups and channels) or "@channelname".
bool IsTelegramChatId(const std::string& id) {
  if (id.empty()) return false;
  if (id[0] == '@') {
    if (id.size() < 6 || id.size() > 33) return false;
    for (size_t i = 1; i < id.size(); ++i) {
      if (!std::isalnum(static_cast<unsigned char>(id[i])) && id[i] != '_') return false;
    }
    return true;
  }
  const size_t digits = id[0] == '-' ? 1 : 0;
  if (digits >= id.size() || id.size() > 20) return false;
  for (size_t i = digits; i < id.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(id[i]))) return false;
  }
  return true;
}

}  // namespace

void ReadTelegramSettings(ChannelReading& reading, TelegramSettings& out) {
  config::MapReader& item = reading.item;
  item.Read("api_url", out.api_url);
  reading.RequireUrl("api_url", out.api_url, {"https://", "http://"});
  item.Read("chat_id", out.chat_id);
  if (!IsTelegramChatId(out.chat_id)) {
    item.Fail("chat_id", out.chat_id.empty()
                             ? "the chat to post to is required (a numeric id, e.g. "
                               "\"-1001234567890\", or \"@channelname\")"
                             : "expected a numeric chat id (e.g. \"-1001234567890\") or "
                               "\"@channelname\"");
  }
  out.token = reading.Secret("token", true);
}

}  // namespace quell::channels
