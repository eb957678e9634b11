#pragma once

#include <memory>
#include <string>

#include "quell/adapters/channels/http_channel_support.h"
#include "quell/adapters/channels/sms/sms_settings.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

// SMS through Twilio's Messages API: a form POST to
// {base}/2010-04-01/Accounts/{sid}/Messages.json (To, From, Body of at most 1600 bytes),
// basic auth, and I-Twilio-Idempotency-Token: <outbox key> so Twilio drops a retried twin.
// The remote id is the message's "sid"; Twilio's error JSON (code, message) goes in the error.
class TwilioSmsChannel : public core::HttpChannel {
 public:
  static core::Result<std::unique_ptr<TwilioSmsChannel>> Create(SmsSettings settings);

  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override;
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override;

 private:
  explicit TwilioSmsChannel(SmsSettings settings);
  SmsSettings settings_;
  std::string authorization_;  // "Basic base64(sid:token)"
};

// "Basic " + base64(user ":" password), RFC 7617.
std::string BasicAuthorization(std::string_view user, std::string_view password);

}  // namespace quell::channels
