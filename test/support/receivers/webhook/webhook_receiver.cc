#include "webhook_receiver.h"

#include <chrono>

#include "quell/adapters/channels/webhook/webhook_signature.h"

namespace quell::testing {

WebhookReceiver::WebhookReceiver(std::string secret) : secret_(std::move(secret)) {
  server().Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
    core::WallTime now;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      now = now_.value_or(
          std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now()));
    }
    const core::Status verified =
        !secret_.empty() ? channels::VerifyWebhookSignature(
                               secret_, req.get_header_value("X-Quell-Timestamp"),
                               req.get_header_value("X-Quell-Signature"), req.body, now)
        : req.has_header("X-Quell-Signature")
            ? core::MakeError(core::ErrorCode::kInvalidArgument, "an unsigned channel signed")
            : core::Status();
    const Admission admission =
        Admit(req, res, req.get_header_value("Idempotency-Key"), verified.ok());
    const HangAtExit hang(*this, admission.hang);
    if (!admission.answer) {
      if (!verified.ok()) {
        res.status = 401;
        res.set_content(verified.error().message, "text/plain");
      }
      return;
    }
    res.status = 200;
    res.set_content(R"({"received":true})", "application/json");
  });
  Start();
}

void WebhookReceiver::SetNow(core::WallTime now) {
  const std::lock_guard<std::mutex> lock(mu_);
  now_ = now;
}

}  // namespace quell::testing
