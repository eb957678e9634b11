#include "quell/adapters/channels/webhook/webhook_channel.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <utility>

#include "quell/adapters/channels/webhook/webhook_kind.h"
#include "quell/adapters/channels/webhook/webhook_signature.h"
#include "quell/adapters/jsonl/message_codec.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/text/json_escape.h"

namespace quell::channels {
namespace {

using jsonl::JsonText;
constexpr std::string_view kChannel = "webhook";
constexpr size_t kMinSecretBytes = 16;

// `text` as a JSON string literal, by quell's one escaper: invalid UTF-8 in a rendered message
// becomes U+FFFD rather than failing the send.
void AppendString(std::string& out, std::string_view text) { core::AppendJsonString(out, text); }

// {"body","severity","subject"} of the rendered message, keys sorted as in every body.
std::string MessageJson(const core::RenderedMessage& message) {
  return jsonl::SortedObject({{"body", JsonText(message.body)},
                              {"severity", JsonText(message.severity)},
                              {"subject", JsonText(message.subject)}});
}

}  // namespace

core::Result<std::unique_ptr<WebhookChannel>> WebhookChannel::Create(WebhookSettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "url", settings.url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  if (Signs(settings) && settings.secret.size() < kMinSecretBytes) {
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
  const core::Message& content = delivery.content;
  if (content.kind != core::Message::Kind::kDeadLetter || content.notice_name != "dead_letter") {
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        "webhook: the outbox payload of " + row.idempotency_key + " is not a dead-letter notice");
  }
  return jsonl::SortedObject(
      {{"dead_letter", content.notice_json},
       {"idempotency_key", JsonText(row.idempotency_key)},
       {"kind", JsonText(core::MessageKindName(core::MessageKind::kDeadLetter))},
       {"message", MessageJson(delivery.message)},
       {"version", "1"}});
}

// A group message: the fields every body has, beside the group's own; the member snapshots
// past `limit` are counted, not sent, so one outage never makes a body of megabytes.
core::Result<std::string> GroupBody(const core::Delivery& delivery, size_t limit) {
  const core::OutboxRow& row = delivery.row;
  if (delivery.content.kind != core::Message::Kind::kGroup) {
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        "webhook: the outbox payload of " + row.idempotency_key + " is not a group message");
  }
  const core::GroupSnapshot& group = delivery.content.group;
  const size_t listed = std::min(limit, group.members.size());
  std::string members = "[";
  for (size_t i = 0; i < listed; ++i) {
    if (i > 0) members += ',';
    members += jsonl::SnapshotJson(group.members[i]);
  }
  members += ']';
  return jsonl::SortedObject(
      {{"generation", std::to_string(row.generation)},
       {"group",
        jsonl::GroupJson(group, {{"members_more", std::to_string(group.members.size() - listed)}})},
       {"idempotency_key", JsonText(row.idempotency_key)},
       {"incident", "null"},
       {"incident_version", std::to_string(row.version)},
       {"key", JsonText(row.key)},
       {"kind", "\"group\""},
       {"members", std::move(members)},
       {"message", MessageJson(delivery.message)},
       {"transition", JsonText(core::TransitionName(row.transition))},
       {"version", "1"}});
}

}  // namespace

core::Result<std::string> WebhookBody(const core::Delivery& delivery, size_t group_limit) {
  const core::OutboxRow& row = delivery.row;
  const core::MessageKind kind = core::MessageKindOf(row);
  if (kind == core::MessageKind::kDeadLetter) return DeadLetterBody(delivery);
  if (core::IsGroupRow(row)) return GroupBody(delivery, group_limit);
  // The stored snapshot (or digest), which the dispatcher has read, is embedded as it is:
  // printing the message's snapshot again would cost about as much as rendering the message.
  const core::Message& content = delivery.content;
  const bool read = content.kind == core::Message::Kind::kIncident ? !content.incident.key.empty()
                                                                   : !content.notice_name.empty();
  if (!read) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "webhook: the outbox payload of " + row.idempotency_key +
                               " was not read as a snapshot or a notice");
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
      Signs(settings_) ? WebhookSignature(settings_.secret, seconds, *body) : std::string();
  core::HttpRequest request =
      PostRequest(settings_.url, "application/json", std::move(*body), settings_.timeouts);
  request.headers.reserve(request.headers.size() + 4);
  request.headers.emplace_back("Idempotency-Key", delivery.row.idempotency_key);
  request.headers.emplace_back("X-Quell-Timestamp", std::to_string(seconds));
  if (Signs(settings_)) request.headers.emplace_back("X-Quell-Signature", std::move(signature));
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

core::Result<BuiltChannel> WebhookKind::Build(Settings settings, const ChannelBuild& build) {
  settings.timeouts = build.timeouts;
  settings.group_limit = build.group_limit;
  return Built(WebhookChannel::Create(std::move(settings)));
}

}  // namespace quell::channels
