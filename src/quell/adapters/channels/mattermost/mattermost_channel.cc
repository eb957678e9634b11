#include "quell/adapters/channels/mattermost/mattermost_channel.h"

#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "quell/adapters/channels/mattermost/mattermost_kind.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/message_limits.h"

namespace quell::channels {
namespace {

using nlohmann::json;
constexpr std::string_view kChannel = "mattermost";
// developers.mattermost.com/integrate/webhooks/incoming: a longer text is split into several
// posts; servers from v5.0 take posts of up to 16383 characters.
constexpr size_t kMaxTextChars = 16383;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Mattermost's errors are its AppError JSON: {"id": "web.incoming_webhook.text.app_error",
// "message": "...", "status_code": 400, ...}.
std::string Detail(const core::HttpResponse& response) {
  const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (answer.is_object() && answer.contains("message") && answer["message"].is_string()) {
    std::string detail = answer["message"].get<std::string>();
    if (answer.contains("id") && answer["id"].is_string()) {
      detail += " (" + answer["id"].get<std::string>() + ")";
    }
    return Truncate(detail, 300);
  }
  return BodyExcerpt(response.body);
}

}  // namespace

std::string DefuseChannelMentions(std::string_view text) {
  static constexpr std::array<std::string_view, 3> kWords = {"channel", "all", "here"};
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] != '@') continue;
    const std::string_view rest = text.substr(i + 1);
    for (const std::string_view word : kWords) {
      if (rest.size() < word.size()) continue;
      bool same = true;
      for (size_t k = 0; k < word.size(); ++k) {
        same = same && std::tolower(static_cast<unsigned char>(rest[k])) == word[k];
      }
      const bool ends = rest.size() == word.size() ||
                        !std::isalnum(static_cast<unsigned char>(rest[word.size()]));
      if (same && ends) {
        out += "\xE2\x80\x8B";  // U+200B ZERO WIDTH SPACE
        break;
      }
    }
  }
  return out;
}

core::Result<std::unique_ptr<MattermostChannel>> MattermostChannel::Create(
    MattermostSettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "url", settings.url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  if (!settings.icon_url.empty()) {
    if (auto s = CheckHttpUrl(kChannel, "icon_url", settings.icon_url); !s.ok()) return s.error();
  }
  std::string_view path = settings.url;
  path = path.substr(0, path.find_first_of("?#"));
  while (path.ends_with('/')) path.remove_suffix(1);
  std::string key(path.substr(path.rfind('/') + 1));
  return std::unique_ptr<MattermostChannel>(new MattermostChannel(std::move(settings), key));
}

core::Result<core::HttpRequest> MattermostChannel::Encode(const core::Delivery& delivery,
                                                          core::WallTime /*now*/) const {
  const core::RenderedMessage& message = delivery.message;
  const core::OutboxRow& row = delivery.row;
  std::string text;
  if (!message.subject.empty()) text = "**" + message.subject + "**";
  if (!message.body.empty()) {
    if (!text.empty()) text += '\n';
    text += message.body;
  }
  if (text.empty()) text = row.key;
  // Lets an operator (or a test) spot a twin: Mattermost itself cannot refuse one.
  const core::MessageKind kind = core::MessageKindOf(row);
  json props = {{"quell_idempotency_key", row.idempotency_key},
                {"quell_kind", core::MessageKindName(kind)}};
  if (kind != core::MessageKind::kDeadLetter) {
    props["quell_key"] = row.key;
    props["quell_transition"] = core::TransitionName(row.transition);
    props["quell_generation"] = row.generation;
  }
  json body = {{"text", core::CutToChars(DefuseChannelMentions(text), kMaxTextChars)},
               {"props", std::move(props)}};
  if (!settings_.username.empty()) body["username"] = settings_.username;
  if (!settings_.icon_url.empty()) body["icon_url"] = settings_.icon_url;
  core::HttpRequest request =
      PostRequest(settings_.url, "application/json", Dump(body), settings_.timeouts);
  request.label_url = CredentialUrlLabel(settings_.url);
  return request;
}

core::SendOutcome MattermostChannel::Decode(const core::Delivery& /*delivery*/,
                                            const core::HttpResponse& response) const {
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    return core::SendOutcome::Sent("");
  }
  return FailureOutcome(response, ErrorText(kChannel, response.status, Detail(response), key_));
}

core::Result<BuiltChannel> MattermostKind::Build(Settings settings, const ChannelBuild& build) {
  settings.timeouts = build.timeouts;
  return Built(MattermostChannel::Create(std::move(settings)));
}

}  // namespace quell::channels
