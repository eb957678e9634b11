#include "quell/adapters/channels/teams/teams_channel.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "quell/adapters/channels/teams/teams_kind.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"

namespace quell::channels {
namespace {

using nlohmann::json;
constexpr std::string_view kChannel = "teams";
// Teams refuses a message over 28 KB (learn.microsoft.com, "Create an Incoming Webhook": "The
// message size limit is 28 KB"). The body's lines get a budget that counts each TextBlock's JSON
// too; a last check on the whole request drops lines should escaping have grown it.
constexpr size_t kMaxMessageBytes = 28 * 1024 - 512;
constexpr size_t kMaxLinesBytes = 22000;
constexpr size_t kTextBlockOverhead = 70;
constexpr size_t kMaxTitleBytes = 1000;
constexpr size_t kMaxLineBytes = 2000;
constexpr size_t kMaxFactBytes = 500;
constexpr size_t kMaxLines = 150;

// Adaptive Card colours: attention (red) while failing badly, warning, good once resolved.
const char* Colour(const core::Delivery& delivery) {
  if (delivery.row.transition == core::TransitionKind::kResolve &&
      core::MessageKindOf(delivery.row) != core::MessageKind::kDeadLetter) {
    return "good";
  }
  const std::string& severity = delivery.message.severity;
  if (severity == "warning") return "warning";
  if (severity == "info") return "accent";
  return "attention";
}

json TextBlock(std::string text) {
  return {{"type", "TextBlock"}, {"text", std::move(text)}, {"wrap", true}};
}

// One TextBlock per non-empty line (a TextBlock's markdown needs a blank line for a break, and
// separate blocks keep a group's list one member a line), within the card's text budget.
void AddBodyLines(std::string_view body, json& blocks) {
  size_t used = 0;
  size_t lines = 0;
  bool gap = false;
  while (!body.empty()) {
    const size_t end = body.find('\n');
    std::string_view line = body.substr(0, end);
    body = end == std::string_view::npos ? std::string_view() : body.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      gap = true;
      continue;
    }
    const size_t cost = std::min(line.size(), kMaxLineBytes) + kTextBlockOverhead;
    if (used + cost > kMaxLinesBytes || lines + 1 >= kMaxLines) {
      blocks.push_back(TextBlock("\xE2\x80\xA6"));  // the rest does not fit in one card
      return;
    }
    json block = TextBlock(Truncate(line, kMaxLineBytes));
    block["spacing"] = gap ? "Medium" : "None";
    blocks.push_back(std::move(block));
    used += cost;
    ++lines;
    gap = false;
  }
}

json Facts(const core::Delivery& delivery) {
  const core::OutboxRow& row = delivery.row;
  json facts = json::array();
  const core::MessageKind kind = core::MessageKindOf(row);
  if (kind != core::MessageKind::kDeadLetter) {
    facts.push_back({{"title", core::IsGroupRow(row) ? "Group" : "Key"},
                     {"value", Truncate(row.key, kMaxFactBytes)}});
    facts.push_back({{"title", "Transition"}, {"value", core::TransitionName(row.transition)}});
  }
  if (!delivery.message.severity.empty()) {
    facts.push_back({{"title", "Severity"}, {"value", delivery.message.severity}});
  }
  // Workflows have no idempotency key: the outbox key shows a twin for what it is.
  facts.push_back({{"title", "quell id"}, {"value", row.idempotency_key}});
  return facts;
}

json Card(const core::Delivery& delivery) {
  const core::RenderedMessage& message = delivery.message;
  json body = json::array();
  std::string title = message.subject.empty() ? delivery.row.key : message.subject;
  json heading = TextBlock(Truncate(title, kMaxTitleBytes));
  heading["weight"] = "Bolder";
  heading["size"] = "Medium";
  heading["color"] = Colour(delivery);
  heading["style"] = "heading";
  body.push_back(std::move(heading));
  AddBodyLines(message.body, body);
  body.push_back({{"type", "FactSet"}, {"facts", Facts(delivery)}, {"separator", true}});
  return {{"$schema", "http://adaptivecards.io/schemas/adaptive-card.json"},
          {"type", "AdaptiveCard"},
          {"version", "1.4"},
          {"msteams", {{"width", "Full"}}},
          {"body", std::move(body)}};
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// The Workflows trigger is an Azure Logic Apps endpoint: its errors read
// {"error":{"code":"...","message":"..."}}.
std::string Detail(const core::HttpResponse& response) {
  const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (answer.is_object() && answer.contains("error") && answer["error"].is_object()) {
    const json& error = answer["error"];
    std::string detail = error.value("code", "");
    const std::string text = error.value("message", "");
    if (!text.empty()) detail += detail.empty() ? text : ": " + text;
    if (!detail.empty()) return Truncate(detail, 300);
  }
  return BodyExcerpt(response.body);
}

// The URL's signature (its sig= value, else its whole query), for ErrorText to scrub should an
// answer echo it.
std::string_view SignatureOf(std::string_view url) {
  const size_t q = url.find('?');
  if (q == std::string_view::npos) return {};
  std::string_view query = url.substr(q + 1);
  for (size_t at = 0; at < query.size();) {
    const size_t end = std::min(query.find('&', at), query.size());
    const std::string_view pair = query.substr(at, end - at);
    if (pair.starts_with("sig=") && pair.size() > 4) return pair.substr(4);
    at = end + 1;
  }
  return query;
}

}  // namespace

std::string TeamsCardJson(const core::Delivery& delivery) { return Dump(Card(delivery)); }

core::Result<std::unique_ptr<TeamsChannel>> TeamsChannel::Create(TeamsSettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "url", settings.url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  return std::unique_ptr<TeamsChannel>(new TeamsChannel(std::move(settings)));
}

core::Result<core::HttpRequest> TeamsChannel::Encode(const core::Delivery& delivery,
                                                     core::WallTime /*now*/) const {
  json envelope = {
      {"type", "message"},
      {"attachments", json::array({{{"contentType", "application/vnd.microsoft.card.adaptive"},
                                    {"contentUrl", nullptr},
                                    {"content", Card(delivery)}}})}};
  std::string body = Dump(envelope);
  // Escaping (quotes, control characters) can make the JSON longer than the budget counted:
  // lines go from the end, the heading and the facts stay.
  json& blocks = envelope["attachments"][0]["content"]["body"];
  while (body.size() > kMaxMessageBytes && blocks.size() > 2) {
    blocks.erase(blocks.size() - 2);
    body = Dump(envelope);
  }
  core::HttpRequest request = PostRequest(settings_.url, "application/json; charset=utf-8",
                                          std::move(body), settings_.timeouts);
  request.label_url = CredentialUrlLabel(settings_.url);
  return request;
}

core::SendOutcome TeamsChannel::Decode(const core::Delivery& /*delivery*/,
                                       const core::HttpResponse& response) const {
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    return core::SendOutcome::Sent("");
  }
  return FailureOutcome(
      response, ErrorText(kChannel, response.status, Detail(response), SignatureOf(settings_.url)));
}

core::Result<BuiltChannel> TeamsKind::Build(Settings settings, const ChannelBuild& build) {
  settings.timeouts = build.timeouts;
  return Built(TeamsChannel::Create(std::move(settings)));
}

}  // namespace quell::channels
