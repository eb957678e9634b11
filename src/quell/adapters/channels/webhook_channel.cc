#include "quell/adapters/channels/webhook_channel.h"

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <utility>

#include "quell/adapters/channels/webhook_signature.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/text/json_escape.h"

namespace quell::channels {
namespace {

using nlohmann::json;
constexpr std::string_view kChannel = "webhook";
constexpr size_t kMinSecretBytes = 16;

// `text` as a JSON string literal, by quell's one escaper: invalid UTF-8 in a rendered message
// becomes U+FFFD rather than failing the send.
void AppendString(std::string& out, std::string_view text) { core::AppendJsonString(out, text); }

bool IsJsonObject(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{' && json::accept(text);
}

}  // namespace

core::Result<std::unique_ptr<WebhookChannel>> WebhookChannel::Create(WebhookSettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "url", settings.url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  if (settings.sign && settings.secret.size() < kMinSecretBytes) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "webhook: secret must be at least 16 bytes");
  }
  return std::unique_ptr<WebhookChannel>(new WebhookChannel(std::move(settings)));
}

namespace {

// A dead-letter notice is about outbox rows, not an incident: no key, no incident, no
// transition, only what died ({"dead_letter":{...}} from the payload) and the message.
core::Result<std::string> DeadLetterBody(const core::Delivery& delivery) {
  const core::OutboxRow& row = delivery.row;
  const json payload = json::parse(row.payload, nullptr, /*allow_exceptions=*/false);
  if (!payload.is_object() || !payload.contains("dead_letter")) {
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        "webhook: the outbox payload of " + row.idempotency_key + " is not a dead-letter notice");
  }
  const json body = {{"dead_letter", payload["dead_letter"]},
                     {"idempotency_key", row.idempotency_key},
                     {"kind", core::MessageKindName(core::MessageKind::kDeadLetter)},
                     {"message",
                      {{"body", delivery.message.body},
                       {"severity", delivery.message.severity},
                       {"subject", delivery.message.subject}}},
                     {"version", 1}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A group message: the fields every body has, beside the group's own; the member snapshots
// past `limit` are counted, not sent, so one outage never makes a body of megabytes.
core::Result<std::string> GroupBody(const core::Delivery& delivery, size_t limit) {
  const core::OutboxRow& row = delivery.row;
  json payload = json::parse(row.payload, nullptr, /*allow_exceptions=*/false);
  if (!payload.is_object() || !payload.contains("group") || !payload["group"].is_object()) {
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        "webhook: the outbox payload of " + row.idempotency_key + " is not a group message");
  }
  json& group = payload["group"];
  json members = json::array();
  if (group.contains("members") && group["members"].is_array()) {
    members = std::move(group["members"]);
    group.erase("members");
  }
  const size_t total = members.size();
  if (total > limit)
    members.erase(members.begin() + static_cast<std::ptrdiff_t>(limit), members.end());
  group["members_more"] = total - members.size();
  const json body = {{"generation", row.generation},
                     {"group", std::move(group)},
                     {"idempotency_key", row.idempotency_key},
                     {"incident", nullptr},
                     {"incident_version", row.version},
                     {"key", row.key},
                     {"kind", "group"},
                     {"members", std::move(members)},
                     {"message",
                      {{"body", delivery.message.body},
                       {"severity", delivery.message.severity},
                       {"subject", delivery.message.subject}}},
                     {"transition", core::TransitionName(row.transition)},
                     {"version", 1}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

core::Result<std::string> WebhookBody(const core::Delivery& delivery, size_t group_limit) {
  const core::OutboxRow& row = delivery.row;
  const core::MessageKind kind = core::MessageKindOf(row);
  if (kind == core::MessageKind::kDeadLetter) return DeadLetterBody(delivery);
  if (core::IsGroupRow(row)) return GroupBody(delivery, group_limit);
  // The payload is already compact JSON: it is checked and embedded as it is, since parsing it
  // into a tree and printing it again cost about as much as rendering the message.
  if (!IsJsonObject(row.payload)) {
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        "webhook: the outbox payload of " + row.idempotency_key + " is not a JSON object");
  }
  std::string body;
  body.reserve(row.payload.size() + delivery.message.subject.size() + delivery.message.body.size() +
               256);
  body.append(R"({"generation":)").append(std::to_string(row.generation));
  body.append(R"(,"idempotency_key":)");
  AppendString(body, row.idempotency_key);
  body.append(R"(,"incident":)").append(row.payload);
  body.append(R"(,"incident_version":)").append(std::to_string(row.version));
  body.append(R"(,"key":)");
  AppendString(body, row.key);
  body.append(R"(,"kind":")").append(core::MessageKindName(kind));
  body.append(R"(","message":{"body":)");
  AppendString(body, delivery.message.body);
  body.append(R"(,"severity":)");
  AppendString(body, delivery.message.severity);
  body.append(R"(,"subject":)");
  AppendString(body, delivery.message.subject);
  body.append(R"(},"transition":)");
  AppendString(body, core::TransitionName(row.transition));
  body.append(R"(,"version":1})");
  return body;
}

core::Result<core::HttpRequest> WebhookChannel::Encode(const core::Delivery& delivery,
                                                       core::WallTime now) const {
  core::Result<std::string> body = WebhookBody(delivery, settings_.group_limit);
  if (!body.ok()) return body.error();
  const int64_t seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  std::string signature =
      settings_.sign ? WebhookSignature(settings_.secret, seconds, *body) : std::string();
  core::HttpRequest request =
      PostRequest(settings_.url, "application/json", std::move(*body), settings_.timeouts);
  request.headers.emplace_back("Idempotency-Key", delivery.row.idempotency_key);
  request.headers.emplace_back("X-Quell-Timestamp", std::to_string(seconds));
  if (settings_.sign) request.headers.emplace_back("X-Quell-Signature", std::move(signature));
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
