#include "quell/adapters/channels/google_chat/google_chat_channel.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "quell/adapters/channels/google_chat/google_chat_kind.h"
#include "quell/core/delivery/callback_key.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/text/sha256.h"

namespace quell::channels {
namespace {

using nlohmann::json;
constexpr std::string_view kChannel = "google_chat";
// Google Chat refuses a message over 32,000 bytes; the text leaves room for the envelope.
constexpr size_t kMaxTextBytes = 30000;
// thread.threadKey "supports up to 4000 characters"; a longer incident key is digested.
constexpr size_t kMaxThreadKeyBytes = 4000;

std::string Hex(std::string_view data, size_t bytes) {
  const auto digest = core::Sha256(data);
  std::string out;
  char buf[3];
  for (size_t i = 0; i < bytes && i < digest.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02x", digest[i]);
    out += buf;
  }
  return out;
}

std::string ThreadKey(const core::OutboxRow& row) {
  // One thread per incident generation, or per group (its row key).
  std::string key =
      core::IsGroupRow(row) ? row.key : core::IncidentCallbackKey(row.key, row.generation);
  if (key.size() > kMaxThreadKeyBytes) key = "sha256:" + Hex(key, 32);
  return key;
}

// The values of the URL's query parameters (key, token): credentials, kept out of errors.
std::vector<std::string> QueryValues(std::string_view url) {
  std::vector<std::string> values;
  const size_t q = url.find('?');
  if (q == std::string_view::npos) return values;
  std::string_view rest = url.substr(q + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos && eq + 1 < pair.size()) {
      values.emplace_back(pair.substr(eq + 1));
    }
  }
  return values;
}

std::string Redacted(std::string text, const std::string& url) {
  for (const std::string& secret : QueryValues(url)) {
    constexpr std::string_view kMark = "[redacted]";  // searched past: it may hold the secret
    for (size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + kMark.size())) {
      text.replace(at, secret.size(), kMark);
    }
  }
  return text;
}

}  // namespace

std::string GoogleChatRequestId(std::string_view idempotency_key) {
  const std::string hex = Hex(idempotency_key, 16);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

core::Result<std::unique_ptr<GoogleChatChannel>> GoogleChatChannel::Create(
    GoogleChatSettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "url", settings.url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  if (settings.url.find('#') != std::string::npos) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "google_chat: url must not contain a fragment ('#')");
  }
  std::unique_ptr<GoogleChatChannel> channel(new GoogleChatChannel(std::move(settings)));
  const std::string& url = channel->settings_.url;
  channel->label_url_ = url.substr(0, url.find('?'));
  return channel;
}

core::Result<core::HttpRequest> GoogleChatChannel::Encode(const core::Delivery& delivery,
                                                          core::WallTime /*now*/) const {
  const core::RenderedMessage& message = delivery.message;
  std::string text;
  if (!message.subject.empty()) text = "*" + message.subject + "*";
  if (!message.body.empty()) {
    if (!text.empty()) text += '\n';
    text += message.body;
  }
  if (text.empty()) text = delivery.row.key;
  const json body = {{"text", Truncate(text, kMaxTextBytes)},
                     {"thread", {{"threadKey", ThreadKey(delivery.row)}}}};
  std::string url = settings_.url;
  url += url.find('?') == std::string::npos ? '?' : '&';
  url += "messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD&requestId=";
  url += GoogleChatRequestId(delivery.row.idempotency_key);
  core::HttpRequest request =
      PostRequest(std::move(url), "application/json; charset=UTF-8",
                  body.dump(-1, ' ', false, json::error_handler_t::replace), settings_.timeouts);
  request.label_url = label_url_;
  return request;
}

core::SendOutcome GoogleChatChannel::Decode(const core::Delivery& /*delivery*/,
                                            const core::HttpResponse& response) const {
  const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    if (answer.is_object() && answer.contains("name") && answer["name"].is_string()) {
      return core::SendOutcome::Sent(answer["name"].get<std::string>());
    }
    // A 2xx without a Message: something in between answered. The requestId makes the retry
    // safe: if Chat did create the message, the retry returns it.
    return core::SendOutcome::Retry(ErrorText(
        kChannel, response.status, "unexpected answer: " + BodyExcerpt(response.body), ""));
  }
  // {"error":{"code":429,"message":"Resource has been exhausted
  // ...","status":"RESOURCE_EXHAUSTED"}}
  std::string detail;
  if (answer.is_object() && answer.contains("error") && answer["error"].is_object()) {
    const json& error = answer["error"];
    if (error.contains("status") && error["status"].is_string()) {
      detail = error["status"].get<std::string>();
    }
    if (error.contains("message") && error["message"].is_string()) {
      if (!detail.empty()) detail += ": ";
      detail += error["message"].get<std::string>();
    }
  }
  if (detail.empty()) detail = BodyExcerpt(response.body);
  return FailureOutcome(response,
                        Redacted(ErrorText(kChannel, response.status, detail, ""), settings_.url));
}

core::Result<BuiltChannel> GoogleChatKind::Build(Settings settings, const ChannelBuild& build) {
  settings.timeouts = build.timeouts;
  return Built(GoogleChatChannel::Create(std::move(settings)));
}

}  // namespace quell::channels
