#include "quell/adapters/channels/webhook_channel.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <utility>

#include "quell/adapters/channels/webhook_signature.h"

namespace quell::channels {
namespace {

using nlohmann::json;
constexpr std::string_view kChannel = "webhook";
constexpr size_t kMinSecretBytes = 16;

}  // namespace

core::Result<std::unique_ptr<WebhookChannel>> WebhookChannel::Create(WebhookSettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "url", settings.url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  if (settings.secret.size() < kMinSecretBytes) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "webhook: secret must be at least 16 bytes");
  }
  return std::unique_ptr<WebhookChannel>(new WebhookChannel(std::move(settings)));
}

core::Result<std::string> WebhookBody(const core::Delivery& delivery) {
  const core::OutboxRow& row = delivery.row;
  json incident = json::parse(row.payload, nullptr, /*allow_exceptions=*/false);
  if (!incident.is_object()) {
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        "webhook: the outbox payload of " + row.idempotency_key + " is not a JSON object");
  }
  json body = {
      {"version", 1},
      {"idempotency_key", row.idempotency_key},
      {"key", row.key},
      {"transition", core::TransitionName(row.transition)},
      {"generation", row.generation},
      {"incident_version", row.version},
      {"incident", std::move(incident)},
      {"message",
       {{"subject", delivery.message.subject},
        {"body", delivery.message.body},
        {"severity", delivery.message.severity}}},
  };
  // Invalid UTF-8 in a rendered message becomes U+FFFD rather than failing the send.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

core::Result<core::HttpRequest> WebhookChannel::Encode(const core::Delivery& delivery,
                                                       core::WallTime now) const {
  core::Result<std::string> body = WebhookBody(delivery);
  if (!body.ok()) return body.error();
  const int64_t seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  std::string signature = WebhookSignature(settings_.secret, seconds, *body);
  core::HttpRequest request =
      PostRequest(settings_.url, "application/json", std::move(*body), settings_.timeouts);
  request.headers.emplace_back("Idempotency-Key", delivery.row.idempotency_key);
  request.headers.emplace_back("X-Quell-Timestamp", std::to_string(seconds));
  request.headers.emplace_back("X-Quell-Signature", std::move(signature));
  request.headers.emplace_back("User-Agent", "quell-webhook/1");
  return request;
}

core::SendOutcome WebhookChannel::Decode(const core::Delivery& /*delivery*/,
                                         const core::HttpResponse& response) const {
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    return core::SendOutcome::Sent("");
  }
  return FailureOutcome(
      response, ErrorText(kChannel, response.status, BodyExcerpt(response.body), settings_.secret));
}

}  // namespace quell::channels
