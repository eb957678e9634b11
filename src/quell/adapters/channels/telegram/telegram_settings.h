#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "quell/adapters/channels/http_timeouts.h"

namespace quell::channels {

struct TelegramSettings {
  std::string api_url = "https://api.telegram.org";
  std::string token;      // the bot token, "123456:ABC..."; it travels in the URL path
  std::string chat_id;    // "123", "-100123..." or "@channelname"
  HttpTimeouts timeouts;  // the builder's, from the channel's delivery settings
};

}  // namespace quell::channels
