#include "quell/adapters/channels/ntfy/ntfy_channel.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <utility>

#include "quell/adapters/channels/ntfy/ntfy_kind.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/text/url.h"

namespace quell::channels {
namespace {

using nlohmann::json;
constexpr std::string_view kChannel = "ntfy";
// docs.ntfy.sh/publish (limitations): a message over 4,096 bytes becomes an attachment or is
// refused; a title over 1 KB is refused (400).
constexpr size_t kMaxMessageBytes = 4096;
constexpr size_t kMaxTitleBytes = 1024;
constexpr size_t kMaxTopicBytes = 64;
constexpr size_t kMaxActions = 3;  // ntfy refuses a message with more

bool IsTopic(std::string_view topic) {
  if (topic.empty() || topic.size() > kMaxTopicBytes) return false;
  for (const char c : topic) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

// The severity's emoji tag (ntfy turns known tag names into emojis before the title).
const char* EmojiTag(std::string_view severity, bool resolve) {
  if (resolve) return "white_check_mark";
  if (severity == "warning") return "warning";
  if (severity == "info") return "information_source";
  return "rotating_light";  // critical, fatal, error and anything unknown
}

}  // namespace

int NtfyPriority(std::string_view severity, bool resolve) {
  if (resolve) return 2;
  if (severity == "critical" || severity == "fatal") return 5;
  if (severity == "warning") return 3;
  if (severity == "info") return 2;
  return 4;  // error, and an unknown severity still gets attention
}

core::Result<std::unique_ptr<NtfyChannel>> NtfyChannel::Create(NtfySettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "url", settings.url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  if (!settings.token.empty()) {
    if (auto s = CheckSetting(kChannel, "token", settings.token); !s.ok()) return s.error();
  }
  const std::string& url = settings.url;
  const size_t authority = url.find("://") + 3;
  const size_t path = url.find('/', authority);
  const size_t last = url.rfind('/');
  const std::string topic =
      path == std::string::npos || url.find_first_of("?#") != std::string::npos
          ? std::string()
          : url.substr(last + 1);
  if (!IsTopic(topic)) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "ntfy: url must be a topic URL such as https://ntfy.sh/mytopic (a "
                           "topic of up to 64 letters, digits, '-' or '_', no query)");
  }
  std::unique_ptr<NtfyChannel> channel(new NtfyChannel(std::move(settings)));
  channel->topic_ = topic;
  channel->publish_url_ = channel->settings_.url.substr(0, last + 1);
  return channel;
}

core::Result<core::HttpRequest> NtfyChannel::Encode(const core::Delivery& delivery,
                                                    core::WallTime /*now*/) const {
  const core::OutboxRow& row = delivery.row;
  const core::RenderedMessage& message = delivery.message;
  const bool group = core::IsGroupRow(row);
  const bool resolve = row.transition == core::TransitionKind::kResolve;
  std::string text = message.body.empty() ? message.subject : message.body;
  if (text.empty()) text = row.key;
  json tags = json::array({EmojiTag(message.severity, resolve)});
  if (!message.severity.empty() && message.severity.size() <= 32) tags.push_back(message.severity);
  json body = {
      {"topic", topic_},
      {"title", Truncate(message.subject.empty() ? row.key : message.subject, kMaxTitleBytes)},
      {"message", Truncate(text, kMaxMessageBytes)},
      {"priority", NtfyPriority(message.severity, resolve)},
      {"tags", std::move(tags)}};
  if (!settings_.link_prefix.empty() && !group) {
    body["click"] = settings_.link_prefix + core::UrlEncode(row.key);
  }
  // A link (a pushed alert's runbook) is a button on the notification; ntfy takes three.
  json actions = json::array();
  for (const core::MessageLink& link : message.links) {
    if (actions.size() == kMaxActions) break;
    actions.push_back({{"action", "view"}, {"label", link.text}, {"url", link.url}});
  }
  if (!actions.empty()) body["actions"] = std::move(actions);
  core::HttpRequest request =
      PostRequest(publish_url_, "application/json",
                  body.dump(-1, ' ', false, json::error_handler_t::replace), settings_.timeouts);
  if (!settings_.token.empty()) {
    request.headers.emplace_back("Authorization", "Bearer " + settings_.token);
  }
  return request;
}

core::SendOutcome NtfyChannel::Decode(const core::Delivery& /*delivery*/,
                                      const core::HttpResponse& response) const {
  const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    if (answer.is_object() && answer.contains("id") && answer["id"].is_string()) {
      return core::SendOutcome::Sent(answer["id"].get<std::string>());
    }
    // Published, by the status; the id is only a convenience, and a retry would notify twice.
    return core::SendOutcome::Sent("");
  }
  // {"code":42901,"http":429,"error":"limit reached: too many requests ...","link":"..."}
  std::string detail;
  if (answer.is_object() && answer.contains("error") && answer["error"].is_string()) {
    detail = answer["error"].get<std::string>();
    if (answer.contains("code") && answer["code"].is_number_integer()) {
      detail += " (code " + std::to_string(answer["code"].get<int64_t>()) + ")";
    }
  } else {
    detail = BodyExcerpt(response.body);
  }
  return FailureOutcome(response, ErrorText(kChannel, response.status, detail, settings_.token));
}

core::Result<BuiltChannel> NtfyKind::Build(Settings settings, const ChannelBuild& build) {
  settings.timeouts = build.timeouts;
  settings.link_prefix = build.link_prefix;
  return Built(NtfyChannel::Create(std::move(settings)));
}

}  // namespace quell::channels
