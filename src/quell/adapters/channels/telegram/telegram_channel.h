#pragma once

#include <memory>
#include <string>

#include "quell/adapters/channels/http_channel_support.h"
#include "quell/adapters/channels/telegram/telegram_settings.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

// Telegram Bot API: POST <api_url>/bot<token>/sendMessage with {"chat_id","text"} as plain
// text (no parse_mode, so nothing in a message needs escaping). The open's message_id is the
// remote id; renotifies and resolves reply to it (reply_parameters, allowed to go out without
// the reply when the open was deleted). {"ok":false,...} answers decode; a 429's
// parameters.retry_after is honoured. Telegram has no idempotency key: a retry after a lost
// answer is a second message. The token is in the URL: error texts carry "bot[redacted]".
class TelegramChannel : public core::HttpChannel {
 public:
  static core::Result<std::unique_ptr<TelegramChannel>> Create(TelegramSettings settings);

  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override;
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override;

 private:
  explicit TelegramChannel(TelegramSettings settings) : settings_(std::move(settings)) {}
  TelegramSettings settings_;
};

// At most `max_units` UTF-16 code units of `text` (how Telegram counts its 4096), cut at a
// character and ended with "…" when cut.
std::string CutToUtf16Units(std::string_view text, size_t max_units);

}  // namespace quell::channels
