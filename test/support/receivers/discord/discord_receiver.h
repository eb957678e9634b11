#pragma once

#include <string>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

// One message as the Discord stand-in holds it.
struct DiscordMessage {
  std::string id;  // a snowflake, "1300000000000000001", ...
  std::string content;
  std::string description;      // the first embed's
  std::string footer;           // the first embed's footer text
  std::string thread_id;        // the thread_id query parameter, when posted to a thread
  bool parses_mentions = true;  // false when allowed_mentions.parse is an empty list
};

// Discord's Execute Webhook (docs.discord.com/developers/resources/webhook#execute-webhook):
// POST <WebhookUrl()> = /api/webhooks/<id>/<token>, the token being the credential (401
// {"message": "Invalid Webhook Token", "code": 50027}). JSON params checked as Discord does, with
// its error JSON: content at most 2000 characters, at most 10 embeds, each with title 256,
// description 4096, footer 2048, at most 25 fields, 6000 characters in all the embeds
// (resources/message#embed-object-embed-limits: 400 "Invalid Form Body", code 50035, and the
// field in "errors"); no content and no embed: 400 code 50006. wait=true answers 200 with the
// message object (its "id"), otherwise 204. No idempotency: a retry is a second message
// (Requests() marks it duplicate by the outbox key quell writes in the footer). 429 answers
// topics/rate-limits' body {"message": "You are being rate limited.", "retry_after": <the
// Retry-After seconds>, "global": false} with Retry-After and X-RateLimit-Scope.
class DiscordReceiver : public LoopbackReceiver {
 public:
  DiscordReceiver(std::string webhook_id, std::string token);
  ~DiscordReceiver() override = default;

  std::string WebhookUrl() const;
  std::vector<DiscordMessage> Messages() const;

 private:
  void WriteFault(Fault fault, httplib::Response& res) override;

  const std::string webhook_id_;
  const std::string token_;
  std::vector<DiscordMessage> messages_;  // guarded by mu_
};

}  // namespace quell::testing
