#pragma once

#include <map>
#include <string>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

// One message as the Google Chat stand-in holds it.
struct GoogleChatMessage {
  std::string name;         // "spaces/AAAAquell/messages/m1"
  std::string thread_name;  // "spaces/AAAAquell/threads/t1"
  std::string thread_key;   // the client's thread.threadKey, if any
  std::string text;
  std::string request_id;  // the requestId it was created with, if any
};

// Google Chat's incoming webhook, as developers.google.com/workspace/chat/quickstart/webhooks
// and the spaces.messages.create reference (developers.google.com/workspace/chat/api/reference/
// rest/v1/spaces.messages/create) describe it: POST /v1/spaces/<space>/messages?key=..&token=..
// with a Message body. It checks the key and token (401 UNAUTHENTICATED otherwise), refuses an
// empty text or a message over 32,000 bytes (400 INVALID_ARGUMENT), threads by thread.threadKey
// (or the deprecated threadKey query parameter) only with messageReplyOption
// REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD or REPLY_MESSAGE_OR_FAIL (the default starts a new
// thread and ignores the key), and makes requestId idempotent as documented: a request with a
// requestId already used returns the message created with it and creates nothing. Answers are
// the created Message; errors are Google's {"error":{"code","message","status"}}.
class GoogleChatReceiver : public LoopbackReceiver {
 public:
  GoogleChatReceiver(std::string key, std::string token);
  ~GoogleChatReceiver() override = default;

  // The webhook URL Google Chat shows when the webhook is registered.
  std::string WebhookUrl() const;
  std::vector<GoogleChatMessage> Messages() const;

 private:
  void WriteFault(Fault fault, httplib::Response& res) override;

  const std::string key_;
  const std::string token_;
  std::vector<GoogleChatMessage> messages_;            // guarded by mu_
  std::map<std::string, std::string> threads_by_key_;  // guarded by mu_
  std::map<std::string, size_t> messages_by_request_;  // guarded by mu_
};

}  // namespace quell::testing
