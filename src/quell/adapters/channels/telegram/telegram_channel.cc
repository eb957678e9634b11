#include "quell/adapters/channels/telegram/telegram_channel.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <utility>

#include "quell/adapters/channels/telegram/telegram_kind.h"
#include "quell/core/text/utf8.h"

namespace quell::channels {
namespace {

using nlohmann::json;
constexpr std::string_view kChannel = "telegram";
// core.telegram.org/bots/api#sendmessage: "Text of the message to be sent, 1-4096 characters
// after entities parsing".
constexpr size_t kMaxTextUnits = 4096;

// Telegram's own failures and flood control are worth another attempt; a 400 (chat not
// found, text too long) or 403 (bot blocked, kicked) is not.
core::SendOutcome TelegramFailure(const core::HttpResponse& response, const json& answer,
                                  std::string error) {
  int code = response.status;
  if (answer.is_object() && answer.contains("error_code") &&
      answer["error_code"].is_number_integer()) {
    code = answer["error_code"].get<int>();
  }
  if (code == 429) {
    std::optional<core::Duration> after = RetryAfterOf(response);
    if (answer.contains("parameters") && answer["parameters"].is_object()) {
      const json& p = answer["parameters"];
      if (p.contains("retry_after") && p["retry_after"].is_number_unsigned()) {
        after = std::chrono::seconds(p["retry_after"].get<uint64_t>());
      }
    }
    return core::SendOutcome::Throttled(std::move(error), after);
  }
  core::HttpResponse as_code = response;
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    as_code.status = code;  // {"ok":false} in a 2xx: Telegram's error_code decides
  }
  if (core::ClassifyHttpStatus(as_code.status) == core::SendOutcome::Kind::kSent) {
    return core::SendOutcome::Retry(std::move(error));
  }
  return FailureOutcome(as_code, std::move(error));
}

}  // namespace

std::string CutToUtf16Units(std::string_view text, size_t max_units) {
  constexpr std::string_view kEllipsis = "\xE2\x80\xA6";
  size_t units = 0;
  size_t cut = std::string_view::npos;  // where to cut if the text proves too long
  for (size_t i = 0; i < text.size();) {
    const size_t length = std::max<size_t>(1, core::Utf8SequenceLength(text, i));
    const size_t width = length == 4 ? 2 : 1;
    if (units + width > max_units - 1 && cut == std::string_view::npos) cut = i;
    units += width;
    if (units > max_units) return std::string(text.substr(0, cut)) + std::string(kEllipsis);
    i += length;
  }
  return std::string(text);
}

core::Result<std::unique_ptr<TelegramChannel>> TelegramChannel::Create(TelegramSettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "api_url", settings.api_url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  if (auto s = CheckSetting(kChannel, "token", settings.token); !s.ok()) return s.error();
  if (auto s = CheckSetting(kChannel, "chat_id", settings.chat_id); !s.ok()) return s.error();
  // The token becomes a path segment: anything that would change the URL's shape is refused.
  if (settings.token.find_first_of("/?#% \t") != std::string::npos) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "telegram: token must be a bot token (digits ':' letters), as "
                           "@BotFather gives it");
  }
  while (settings.api_url.ends_with('/')) settings.api_url.pop_back();
  return std::unique_ptr<TelegramChannel>(new TelegramChannel(std::move(settings)));
}

core::Result<core::HttpRequest> TelegramChannel::Encode(const core::Delivery& delivery,
                                                        core::WallTime /*now*/) const {
  const core::RenderedMessage& message = delivery.message;
  std::string text = message.subject;
  if (!message.body.empty()) {
    if (!text.empty()) text += "\n\n";
    text += message.body;
  }
  if (text.empty()) text = delivery.row.key;
  json body = {{"chat_id", settings_.chat_id}, {"text", CutToUtf16Units(text, kMaxTextUnits)}};
  // The chat id is a number for users and groups, "@name" for public channels.
  int64_t numeric = 0;
  const std::string& id = settings_.chat_id;
  if (const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), numeric);
      ec == std::errc() && end == id.data() + id.size()) {
    body["chat_id"] = numeric;
  }
  int64_t reply_to = 0;
  const std::string& root = delivery.thread_remote_id;
  if (delivery.row.transition != core::TransitionKind::kOpen && !root.empty()) {
    if (const auto [end, ec] = std::from_chars(root.data(), root.data() + root.size(), reply_to);
        ec == std::errc() && end == root.data() + root.size() && reply_to > 0) {
      body["reply_parameters"] = {{"message_id", reply_to}, {"allow_sending_without_reply", true}};
    }
  }
  core::HttpRequest request =
      PostRequest(settings_.api_url + "/bot" + settings_.token + "/sendMessage", "application/json",
                  body.dump(-1, ' ', false, json::error_handler_t::replace), settings_.timeouts);
  request.label_url = settings_.api_url + "/bot[redacted]/sendMessage";
  return request;
}

core::SendOutcome TelegramChannel::Decode(const core::Delivery& /*delivery*/,
                                          const core::HttpResponse& response) const {
  const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  const bool has_ok = answer.is_object() && answer.contains("ok") && answer["ok"].is_boolean();
  if (has_ok && answer["ok"].get<bool>() &&
      core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    if (answer.contains("result") && answer["result"].is_object() &&
        answer["result"].contains("message_id") &&
        answer["result"]["message_id"].is_number_integer()) {
      return core::SendOutcome::Sent(std::to_string(answer["result"]["message_id"].get<int64_t>()));
    }
    return core::SendOutcome::Sent("");
  }
  // {"ok":false,"error_code":429,"description":"Too Many Requests: retry after 5",
  //  "parameters":{"retry_after":5}}
  std::string detail = has_ok && answer.contains("description") && answer["description"].is_string()
                           ? answer["description"].get<std::string>()
                           : BodyExcerpt(response.body);
  if (!has_ok && core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    // A 2xx without Telegram's envelope: something in between answered.
    return core::SendOutcome::Retry(
        ErrorText(kChannel, response.status, "unexpected answer: " + detail, settings_.token));
  }
  return TelegramFailure(response, answer,
                         ErrorText(kChannel, response.status, detail, settings_.token));
}

core::Result<BuiltChannel> TelegramKind::Build(Settings settings, const ChannelBuild& build) {
  settings.timeouts = build.timeouts;
  return Built(TelegramChannel::Create(std::move(settings)));
}

}  // namespace quell::channels
