#pragma once

#include <deque>
#include <string>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

// One message as the Slack stand-in holds it.
struct SlackMessage {
  std::string channel;
  std::string ts;               // assigned on chat.postMessage, "1700000000.000001", ...
  std::string thread_ts;        // set when posted as a thread reply
  std::string text;             // the fallback text, after the latest chat.update
  std::string idempotency_key;  // from the message metadata; empty for incoming webhooks
  int updates = 0;              // chat.update calls on it
};

// Slack's Web API (POST <ApiBaseUrl()>/chat.postMessage, /chat.update, checking
// "Authorization: Bearer <token>") and an incoming webhook (POST <WebhookUrl()>, answering
// "ok"). Like Slack it does not deduplicate: a retried post is a second message, though the
// metadata key marks it as a duplicate in Requests(). Faults answer Slack-shaped bodies.
class SlackReceiver : public LoopbackReceiver {
 public:
  explicit SlackReceiver(std::string token);
  ~SlackReceiver() override = default;

  std::string ApiBaseUrl() const { return BaseUrl() + "/api"; }
  std::string WebhookUrl() const { return BaseUrl() + "/services/T0/B0/hook"; }

  // The next Web API call answers 200 {"ok":false,"error":<error>}.
  void ErrorNext(std::string error);
  std::vector<SlackMessage> Messages() const;

 private:
  void WriteFault(Fault fault, httplib::Response& res) override;

  const std::string token_;
  std::deque<std::string> errors_;      // guarded by mu_
  std::vector<SlackMessage> messages_;  // guarded by mu_
};

}  // namespace quell::testing
