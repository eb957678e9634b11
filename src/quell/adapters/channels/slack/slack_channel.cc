#include "quell/adapters/channels/slack/slack_channel.h"

#include <array>
#include <nlohmann/json.hpp>
#include <utility>

#include "quell/adapters/channels/slack/slack_kind.h"
#include "quell/core/delivery/callback_key.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"

namespace quell::channels {
namespace {

using nlohmann::json;
constexpr std::string_view kChannel = "slack";
// Slack's limit for one section block's text.
constexpr size_t kMaxSectionBytes = 3000;
constexpr size_t kMaxFallbackBytes = 4000;

// Slack errors worth another attempt: its own trouble, not the request's.
bool IsTransientSlackError(std::string_view error) {
  static constexpr std::array<std::string_view, 6> kTransient = {
      "ratelimited", "rate_limited",        "internal_error",
      "fatal_error", "service_unavailable", "request_timeout"};
  for (const std::string_view e : kTransient) {
    if (error == e) return true;
  }
  return false;
}

// Slack's limit on blocks in one message.
constexpr size_t kMaxBlocks = 50;
// Slack also refuses (msg_blocks_too_long) messages whose blocks hold about 13,000 characters
// in all, below 50 x 3000: a list stops well before.
constexpr size_t kMaxBlocksBytes = 12000;

json Section(std::string_view text) {
  return {{"type", "section"},
          {"text", {{"type", "mrkdwn"}, {"text", Truncate(text, kMaxSectionBytes)}}}};
}

// One section when the text fits in one (every single transition), else one per 3000 bytes
// cut at line ends (a group's list), at most 50 and 12,000 bytes in all; what does not fit
// ends in "…".
json Blocks(const core::RenderedMessage& message) {
  std::string text;
  if (!message.subject.empty()) {
    text += '*';
    text += message.subject;
    text += '*';
  }
  if (!message.body.empty()) {
    if (!text.empty()) text += '\n';
    text += message.body;
  }
  if (text.empty()) text = " ";
  if (text.size() <= kMaxSectionBytes) return json::array({Section(text)});
  json blocks = json::array();
  size_t total = 0;
  std::string section;
  std::string_view rest = text;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (total + section.size() + line.size() + 1 > kMaxBlocksBytes) {
      section += "\n\xE2\x80\xA6";  // the rest does not fit in one Slack message
      break;
    }
    if (!section.empty() && section.size() + 1 + line.size() > kMaxSectionBytes) {
      if (blocks.size() + 1 == kMaxBlocks) {
        section += "\n\xE2\x80\xA6";
        break;
      }
      total += section.size();
      blocks.push_back(Section(section));
      section.clear();
    }
    if (!section.empty()) section += '\n';
    section += line;
  }
  if (!section.empty()) blocks.push_back(Section(section));
  return blocks;
}

// Slack's limit on a button's value (docs.slack.dev/reference/block-kit/block-elements/
// button-element); a longer one makes Slack refuse the whole message.
constexpr size_t kMaxButtonValueBytes = 2000;

// What a click acks (core/delivery/callback_key.h): the message's incident generation; for a
// group message every member its episode carried (up to the clicked message) and still open,
// as PagerDuty's group alert; a group message of an episode begun before episodes were kept,
// exactly the members it carried, by its row.
std::string ButtonValue(const core::Delivery& delivery) {
  const core::OutboxRow& row = delivery.row;
  if (!core::IsGroupRow(row)) return core::IncidentCallbackKey(row.key, row.generation);
  if (const uint64_t episode = delivery.content.group.episode.value_or(0); episode != 0) {
    return core::GroupAlertCallbackKey(row.channel, core::GroupKeyOfRow(row), episode);
  }
  return row.idempotency_key;
}

// The message's blocks, with the Acknowledge button when asked for and there is room.
json BlocksOf(const core::Delivery& delivery, bool ack_button) {
  json blocks = Blocks(delivery.message);
  const std::string value = ButtonValue(delivery);
  if (!ack_button || delivery.row.transition == core::TransitionKind::kResolve ||
      blocks.size() >= kMaxBlocks || value.size() > kMaxButtonValueBytes) {
    return blocks;
  }
  blocks.push_back(
      {{"type", "actions"},
       {"block_id", "quell_ack"},
       {"elements", json::array({{{"type", "button"},
                                  {"action_id", "quell_ack"},
                                  {"text", {{"type", "plain_text"}, {"text", "Acknowledge"}}},
                                  {"style", "primary"},
                                  {"value", value}}})}});
  return blocks;
}

std::string Fallback(const core::RenderedMessage& message) {
  return Truncate(message.subject.empty() ? message.body : message.subject, kMaxFallbackBytes);
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

core::Result<std::unique_ptr<SlackChannel>> SlackChannel::Create(SlackSettings settings) {
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  if (settings.mode == SlackSettings::Mode::kIncomingWebhook) {
    if (auto s = CheckHttpUrl(kChannel, "webhook_url", settings.webhook_url); !s.ok()) {
      return s.error();
    }
  } else {
    if (auto s = CheckHttpUrl(kChannel, "api_base_url", settings.api_base_url); !s.ok()) {
      return s.error();
    }
    if (auto s = CheckSetting(kChannel, "token", settings.token); !s.ok()) return s.error();
    if (auto s = CheckSetting(kChannel, "channel", settings.channel); !s.ok()) return s.error();
    while (settings.api_base_url.ends_with('/')) settings.api_base_url.pop_back();
  }
  return std::unique_ptr<SlackChannel>(new SlackChannel(std::move(settings)));
}

core::Result<core::HttpRequest> SlackChannel::Encode(const core::Delivery& delivery,
                                                     core::WallTime /*now*/) const {
  const core::RenderedMessage& message = delivery.message;
  if (settings_.mode == SlackSettings::Mode::kIncomingWebhook) {
    const json body = {{"text", Fallback(message)},
                       {"blocks", BlocksOf(delivery, !settings_.signing_secret.empty())}};
    core::HttpRequest request = PostRequest(
        settings_.webhook_url, "application/json; charset=utf-8", Dump(body), settings_.timeouts);
    // The hook's URL is its credential: a timeout names only its scheme and host.
    request.label_url = CredentialUrlLabel(settings_.webhook_url);
    return request;
  }
  const core::OutboxRow& row = delivery.row;
  json body = {{"channel", settings_.channel},
               {"text", Fallback(message)},
               {"blocks", BlocksOf(delivery, !settings_.signing_secret.empty())}};
  std::string method = "chat.postMessage";
  const std::string& root = delivery.thread_remote_id;
  if (row.transition != core::TransitionKind::kOpen && !root.empty()) {
    if (row.transition == core::TransitionKind::kResolve && settings_.resolve_updates_root) {
      method = "chat.update";
      body["ts"] = root;
    } else {
      body["thread_ts"] = root;
    }
  }
  if (method == "chat.postMessage") {
    // Lets an operator (or a test) spot a duplicate: Slack itself cannot refuse one.
    const core::MessageKind kind = core::MessageKindOf(row);
    json event = {{"idempotency_key", row.idempotency_key}, {"kind", core::MessageKindName(kind)}};
    if (kind != core::MessageKind::kDeadLetter) {
      event["key"] = row.key;
      event["transition"] = core::TransitionName(row.transition);
      event["generation"] = row.generation;
    }
    body["metadata"] = {{"event_type", "quell_notification"}, {"event_payload", std::move(event)}};
  }
  core::HttpRequest request =
      PostRequest(settings_.api_base_url + "/" + method, "application/json; charset=utf-8",
                  Dump(body), settings_.timeouts);
  request.headers.emplace_back("Authorization", "Bearer " + settings_.token);
  return request;
}

core::SendOutcome SlackChannel::Decode(const core::Delivery& delivery,
                                       const core::HttpResponse& response) const {
  const bool http_ok = core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent;
  if (settings_.mode == SlackSettings::Mode::kIncomingWebhook) {
    // An incoming webhook answers 200 "ok", or an error word ("invalid_payload",
    // "channel_not_found", ...) as plain text with a 4xx.
    if (http_ok) return core::SendOutcome::Sent("");
    return FailureOutcome(response, ErrorText(kChannel, response.status, BodyExcerpt(response.body),
                                              settings_.token));
  }
  const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  const bool has_ok = answer.is_object() && answer.contains("ok") && answer["ok"].is_boolean();
  if (!http_ok || !has_ok) {
    std::string detail = has_ok && answer.contains("error") && answer["error"].is_string()
                             ? answer["error"].get<std::string>()
                             : BodyExcerpt(response.body);
    if (http_ok) {
      // A 2xx without Slack's envelope: something in between answered; try again later.
      return core::SendOutcome::Retry(
          ErrorText(kChannel, response.status, "unexpected answer: " + detail, settings_.token));
    }
    return FailureOutcome(response, ErrorText(kChannel, response.status, detail, settings_.token));
  }
  if (answer["ok"].get<bool>()) {
    if (answer.contains("ts") && answer["ts"].is_string()) {
      return core::SendOutcome::Sent(answer["ts"].get<std::string>());
    }
    return core::SendOutcome::Sent(delivery.thread_remote_id);
  }
  const std::string error = answer.contains("error") && answer["error"].is_string()
                                ? answer["error"].get<std::string>()
                                : std::string("unknown error");
  std::string text = ErrorText(kChannel, response.status, error, settings_.token);
  if (error == "ratelimited" || error == "rate_limited") {
    return core::SendOutcome::Throttled(std::move(text), RetryAfterOf(response));
  }
  if (IsTransientSlackError(error)) {
    return core::SendOutcome::Retry(std::move(text), RetryAfterOf(response));
  }
  return core::SendOutcome::Permanent(std::move(text));
}

core::Result<BuiltChannel> SlackKind::Build(Settings settings, const ChannelBuild& build) {
  settings.timeouts = build.timeouts;
  return Built(SlackChannel::Create(std::move(settings)));
}

}  // namespace quell::channels
