#pragma once

#include <map>
#include <string>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

// One post as the Mattermost stand-in made it.
struct MattermostPost {
  std::string text;
  std::map<std::string, std::string> props;  // string-valued props
  std::string username;
  std::string icon_url;
  bool mentions_channel = false;  // the text holds @channel, @all or @here
};

// A Mattermost incoming webhook (developers.mattermost.com/integrate/webhooks/incoming): POST
// <HookUrl()> = /hooks/<key>, the key being the credential (400 "Invalid webhook." otherwise),
// Content-Type application/json (else a form with payload=), at least a text or attachments
// (400 "No text specified."), answered 200 "ok" as text/plain; errors are Mattermost's AppError
// JSON {"id", "message", "status_code", ...}. A text over 16383 characters is split into
// several consecutive posts, as the docs say. No idempotency: a retry is a second post (Requests()
// marks it duplicate by props.quell_idempotency_key). 429 answers the server's rate limiter:
// text "limit exceeded" with Retry-After and X-RateLimit-* headers.
class MattermostReceiver : public LoopbackReceiver {
 public:
  explicit MattermostReceiver(std::string key);
  ~MattermostReceiver() override = default;

  std::string HookUrl() const;
  std::vector<MattermostPost> Posts() const;

 private:
  void WriteFault(Fault fault, httplib::Response& res) override;

  const std::string key_;
  std::vector<MattermostPost> posts_;  // guarded by mu_
};

}  // namespace quell::testing
