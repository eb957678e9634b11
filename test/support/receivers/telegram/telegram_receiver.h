#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

// One message as the Telegram stand-in holds it.
struct TelegramMessage {
  int64_t message_id = 0;
  std::string chat_id;
  std::string text;
  int64_t reply_to = 0;  // the message it replies to; 0: none
};

// The Telegram Bot API's sendMessage as core.telegram.org/bots/api describes it: POST
// /bot<token>/sendMessage with a JSON body; answers {"ok":true,"result":Message} or
// {"ok":false,"error_code":N,"description":"..."}; a wrong token is 401 "Unauthorized", an
// unknown chat 400 "Bad Request: chat not found", an empty text "message text is empty", more
// than 4096 characters (UTF-16 units) "message is too long", a reply to an unknown message
// "message to be replied not found" unless reply_parameters.allow_sending_without_reply.
// Flood control (a 429 fault) answers {"ok":false,"error_code":429,"description":"Too Many
// Requests: retry after N","parameters":{"retry_after":N}} with no Retry-After header: the body
// is where Telegram says it. No idempotency: a retried send is a second message.
class TelegramReceiver : public LoopbackReceiver {
 public:
  TelegramReceiver(std::string token, std::string chat_id);
  ~TelegramReceiver() override = default;

  std::string ApiUrl() const { return BaseUrl(); }
  // The retry_after a 429 fault carries (default 7).
  void SetFloodWait(int seconds);
  std::vector<TelegramMessage> Messages() const;

 private:
  void WriteFault(Fault fault, httplib::Response& res) override;

  const std::string token_;
  const std::string chat_id_;
  int flood_wait_ = 7;                     // guarded by mu_
  std::vector<TelegramMessage> messages_;  // guarded by mu_
};

}  // namespace quell::testing
