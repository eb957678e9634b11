#include "quell/adapters/channels/discord/discord_channel.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "quell/adapters/channels/discord/discord_kind.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/message_limits.h"

namespace quell::channels {
namespace {

using nlohmann::json;
constexpr std::string_view kChannel = "discord";
// docs.discord.com/developers/resources/webhook#execute-webhook: content up to 2000
// characters; resources/message#embed-object-embed-limits: description 4096, footer 2048,
// 6000 in all the embeds of a message.
constexpr size_t kMaxContentChars = 2000;
constexpr size_t kMaxDescriptionChars = 4096;
constexpr size_t kMaxFooterChars = 2048;
constexpr size_t kMaxUsernameChars = 80;

int Colour(const core::Delivery& delivery) {
  if (delivery.row.transition == core::TransitionKind::kResolve &&
      core::MessageKindOf(delivery.row) != core::MessageKind::kDeadLetter) {
    return 0x2EB67D;  // green
  }
  const std::string& severity = delivery.message.severity;
  if (severity == "warning") return 0xECB22E;
  if (severity == "info") return 0x1D9BD1;
  return 0xE01E5A;  // critical, error, fatal
}

// `text` within `max_chars`, cut at a line end when it has several (a group's member list
// loses whole members), ended with "…" when cut.
std::string CutAtLine(std::string_view text, size_t max_chars) {
  std::string cut = core::CutToChars(text, max_chars);
  if (cut.size() == text.size()) return cut;
  const size_t line_end = cut.rfind('\n');
  if (line_end != std::string::npos && line_end > cut.size() / 2) {
    cut.resize(line_end);
    cut += "\n\xE2\x80\xA6";
  }
  return cut;
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Discord's errors: {"message": "...", "code": 50035, "errors": {<field>: {"_errors":
// [{"code", "message"}]}}}; the first nested message names the field.
std::string FirstFieldError(const json& errors, const std::string& path) {
  if (!errors.is_object()) return {};
  for (const auto& [name, value] : errors.items()) {
    if (name == "_errors" && value.is_array() && !value.empty() && value[0].is_object()) {
      std::string text = path;
      text += ": ";
      text += value[0].value("message", "");
      return text;
    }
    std::string nested = path;
    if (!nested.empty()) nested += '.';
    nested += name;
    std::string found = FirstFieldError(value, nested);
    if (!found.empty()) return found;
  }
  return {};
}

std::string Detail(const json& answer, const core::HttpResponse& response) {
  if (!answer.is_object() || !answer.contains("message") || !answer["message"].is_string()) {
    return BodyExcerpt(response.body);
  }
  std::string detail;
  if (answer.contains("code") && answer["code"].is_number_integer()) {
    detail = "code " + std::to_string(answer["code"].get<int64_t>()) + ": ";
  }
  detail += answer["message"].get<std::string>();
  if (answer.contains("errors")) {
    if (const std::string field = FirstFieldError(answer["errors"], ""); !field.empty()) {
      detail += " (" + field + ")";
    }
  }
  return Truncate(detail, 300);
}

}  // namespace

std::string AppendQueryParameter(std::string_view url, std::string_view param) {
  std::string out(url);
  const size_t q = out.find('?');
  if (q == std::string::npos) {
    out += '?';
  } else if (!out.ends_with('?') && !out.ends_with('&')) {
    out += '&';
  }
  out += param;
  return out;
}

core::Result<std::unique_ptr<DiscordChannel>> DiscordChannel::Create(DiscordSettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "url", settings.url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  const std::string_view url = settings.url;
  if (url.find('#') != std::string_view::npos) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "discord: url must not have a fragment (#...)");
  }
  const size_t q = url.find('?');
  const std::string_view path = url.substr(0, q);
  if (q != std::string_view::npos) {
    const std::string query = "&" + std::string(url.substr(q + 1));
    if (query.find("&wait=") != std::string::npos) {
      return core::MakeError(core::ErrorCode::kInvalidArgument,
                             "discord: url must not set wait: quell adds wait=true to learn the "
                             "message id");
    }
  }
  if (!settings.avatar_url.empty()) {
    if (auto s = CheckHttpUrl(kChannel, "avatar_url", settings.avatar_url); !s.ok()) {
      return s.error();
    }
  }
  std::string token(path.substr(path.rfind('/') + 1));
  std::string post_url = AppendQueryParameter(url, "wait=true");
  return std::unique_ptr<DiscordChannel>(
      new DiscordChannel(std::move(settings), std::move(post_url), std::move(token)));
}

core::Result<core::HttpRequest> DiscordChannel::Encode(const core::Delivery& delivery,
                                                       core::WallTime /*now*/) const {
  const core::RenderedMessage& message = delivery.message;
  const core::OutboxRow& row = delivery.row;
  std::string footer = "quell " + row.idempotency_key;
  // Webhooks cannot reply (no message_reference on Execute Webhook): the follow-up names the
  // message it follows instead.
  if (row.transition != core::TransitionKind::kOpen && !delivery.thread_remote_id.empty()) {
    footer += " \xC2\xB7 follows message " + delivery.thread_remote_id;
  }
  const std::string& subject = message.subject.empty() ? row.key : message.subject;
  json embed = {{"color", Colour(delivery)},
                {"footer", {{"text", core::CutToChars(footer, kMaxFooterChars)}}}};
  if (!message.body.empty()) embed["description"] = CutAtLine(message.body, kMaxDescriptionChars);
  json body = {{"content", core::CutToChars(subject, kMaxContentChars)},
               {"embeds", json::array({std::move(embed)})},
               {"allowed_mentions", {{"parse", json::array()}}}};
  if (!settings_.username.empty()) {
    body["username"] = core::CutToChars(settings_.username, kMaxUsernameChars);
  }
  if (!settings_.avatar_url.empty()) body["avatar_url"] = settings_.avatar_url;
  core::HttpRequest request =
      PostRequest(post_url_, "application/json", Dump(body), settings_.timeouts);
  request.label_url = CredentialUrlLabel(post_url_);
  return request;
}

core::SendOutcome DiscordChannel::Decode(const core::Delivery& /*delivery*/,
                                         const core::HttpResponse& response) const {
  const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    // 200 with the message (wait=true). A 204 would mean Discord took it without telling the
    // id: sent all the same, since a retry would post it twice.
    if (answer.is_object() && answer.contains("id") && answer["id"].is_string()) {
      return core::SendOutcome::Sent(answer["id"].get<std::string>());
    }
    return core::SendOutcome::Sent("");
  }
  core::SendOutcome outcome = FailureOutcome(
      response, ErrorText(kChannel, response.status, Detail(answer, response), token_));
  // A 429 always has Retry-After; its JSON body's retry_after (seconds, with a fraction) is
  // the fallback should a proxy drop the header.
  if (outcome.kind == core::SendOutcome::Kind::kRetry && !outcome.retry_after &&
      answer.is_object() && answer.contains("retry_after") && answer["retry_after"].is_number()) {
    const double seconds = answer["retry_after"].get<double>();
    if (seconds >= 0 && seconds < 86400) {
      outcome.retry_after =
          std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
    }
  }
  return outcome;
}

core::Result<BuiltChannel> DiscordKind::Build(Settings settings, const ChannelBuild& build) {
  settings.timeouts = build.timeouts;
  return Built(DiscordChannel::Create(std::move(settings)));
}

}  // namespace quell::channels
