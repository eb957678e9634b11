#pragma once

#include <optional>
#include <string>

#include "loopback_receiver.h"
#include "quell/core/text/time.h"

namespace quell::testing {

// A webhook receiver on POST <BaseUrl()>/hook (any path works): checks X-Quell-Signature
// with VerifyWebhookSignature, answers 401 when it fails, and deduplicates by
// Idempotency-Key, answering 200 for a duplicate too, as docs/channels.md asks of receivers.
// With an empty secret it expects unsigned requests and refuses any that carry a signature.
class WebhookReceiver : public LoopbackReceiver {
 public:
  explicit WebhookReceiver(std::string secret);
  ~WebhookReceiver() override = default;

  std::string Url() const { return BaseUrl() + "/hook"; }
  // The time signatures are checked against; the system clock until set.
  void SetNow(core::WallTime now);

 private:
  const std::string secret_;
  std::optional<core::WallTime> now_;  // guarded by mu_
};

}  // namespace quell::testing
