#include "quell/adapters/channels/pagerduty/pagerduty_channel.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "quell/adapters/channels/pagerduty/pagerduty_kind.h"
#include "quell/adapters/jsonl/message_codec.h"
#include "quell/core/delivery/callback_key.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"

namespace quell::channels {
namespace {

using jsonl::JsonMember;
using jsonl::JsonText;
using nlohmann::json;
constexpr std::string_view kChannel = "pagerduty";
constexpr size_t kMaxSummaryBytes = 1024;  // PagerDuty truncates longer summaries itself
constexpr size_t kMaxDedupKeyBytes = 255;

std::string Severity(std::string_view severity) {
  if (severity == "fatal") return "critical";  // PagerDuty has no fatal; critical is its gravest
  if (severity == "critical" || severity == "error" || severity == "warning" ||
      severity == "info") {
    return std::string(severity);
  }
  return "error";  // PagerDuty refuses any other word; an unknown severity still pages
}

// What PagerDuty gets of a group: its counts and the first `limit` members' keys and
// transitions (the whole payload could pass PagerDuty's 512 KB event limit).
std::vector<JsonMember> GroupDetails(const core::GroupSnapshot& group, size_t limit) {
  const size_t listed = std::min(limit, group.members.size());
  std::string members = "[";
  for (size_t i = 0; i < listed; ++i) {
    if (i > 0) members += ',';
    members += jsonl::SortedObject({{"key", JsonText(group.members[i].key)},
                                    {"transition", JsonText(group.members[i].transition)}});
  }
  members += ']';
  return {{"members_more", std::to_string(group.members.size() - listed)},
          {"members", std::move(members)}};
}

}  // namespace

std::string PagerDutyDedupKey(const core::Delivery& delivery) {
  const core::OutboxRow& row = delivery.row;
  if (!core::IsGroupRow(row)) return core::IncidentCallbackKey(row.key, row.generation);
  const uint64_t episode = delivery.content.group.episode.value_or(0);
  // An alert begun before episodes were kept keeps the key it was opened with.
  if (episode == 0) return row.key;
  return core::GroupAlertCallbackKey(row.channel, core::GroupKeyOfRow(row), episode);
}

core::Result<std::unique_ptr<PagerDutyChannel>> PagerDutyChannel::Create(
    PagerDutySettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "base_url", settings.base_url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  if (auto s = CheckSetting(kChannel, "routing_key", settings.routing_key); !s.ok()) {
    return s.error();
  }
  while (settings.base_url.ends_with('/')) settings.base_url.pop_back();
  return std::unique_ptr<PagerDutyChannel>(new PagerDutyChannel(std::move(settings)));
}

core::Result<core::HttpRequest> PagerDutyChannel::Encode(const core::Delivery& delivery,
                                                         core::WallTime /*now*/) const {
  const core::OutboxRow& row = delivery.row;
  const core::Message& content = delivery.content;
  const std::string dedup_key = PagerDutyDedupKey(delivery);
  if (dedup_key.size() > kMaxDedupKeyBytes) {
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        "pagerduty: the dedup key of " + row.idempotency_key + " passes PagerDuty's 255 bytes");
  }
  const bool group = core::IsGroupRow(row);
  const bool resolve = group ? content.group.open_after.value_or(0) == 0
                             : row.transition == core::TransitionKind::kResolve;
  // The body's objects are written with their keys sorted, as PagerDuty has always had them.
  std::vector<JsonMember> body = {{"routing_key", JsonText(settings_.routing_key)},
                                  {"event_action", resolve ? "\"resolve\"" : "\"trigger\""},
                                  {"dedup_key", JsonText(dedup_key)},
                                  {"client", "\"quell\""}};
  if (!resolve) {
    const core::RenderedMessage& message = delivery.message;
    const std::string& summary = message.subject.empty() ? message.body : message.subject;
    const core::MessageKind kind = core::MessageKindOf(row);
    std::vector<JsonMember> extra = {
        {"quell_idempotency_key", JsonText(row.idempotency_key)},
        {"kind", JsonText(group ? "group" : core::MessageKindName(kind))}};
    if (kind != core::MessageKind::kDeadLetter) {
      extra.push_back({"transition", JsonText(core::TransitionName(row.transition))});
    }
    std::string details;
    if (group) {
      std::vector<JsonMember> listed = GroupDetails(content.group, settings_.group_limit);
      extra.insert(extra.end(), listed.begin(), listed.end());
      details = jsonl::GroupJson(content.group, std::move(extra));
    } else if (content.kind == core::Message::Kind::kIncident) {
      details = jsonl::SnapshotJson(content.incident, std::move(extra));
    } else {
      details = jsonl::NoticeJson(content, std::move(extra));
    }
    body.push_back(
        {"payload",
         jsonl::SortedObject(
             {{"summary",
               JsonText(Truncate(summary.empty() ? row.key : summary, kMaxSummaryBytes))},
              {"source", JsonText(settings_.source.empty() ? row.key : settings_.source)},
              {"severity", JsonText(Severity(message.severity))},
              {"custom_details", std::move(details)}})});
    // A pushed alert's runbook, as a link on the PagerDuty incident.
    if (!message.links.empty()) {
      std::string links = "[";
      for (const core::MessageLink& link : message.links) {
        if (links.size() > 1) links += ',';
        links += jsonl::SortedObject({{"href", JsonText(link.url)}, {"text", JsonText(link.text)}});
      }
      links += ']';
      body.push_back({"links", std::move(links)});
    }
  }
  return PostRequest(settings_.base_url + "/v2/enqueue", "application/json",
                     jsonl::SortedObject(std::move(body)), settings_.timeouts);
}

core::SendOutcome PagerDutyChannel::Decode(const core::Delivery& delivery,
                                           const core::HttpResponse& response) const {
  const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    if (answer.is_object() && answer.contains("dedup_key") && answer["dedup_key"].is_string()) {
      return core::SendOutcome::Sent(answer["dedup_key"].get<std::string>());
    }
    return core::SendOutcome::Sent(PagerDutyDedupKey(delivery));
  }
  // {"status":"invalid event","message":"Event object is invalid","errors":["..."]}
  std::string detail;
  if (answer.is_object() && answer.contains("message") && answer["message"].is_string()) {
    detail = answer["message"].get<std::string>();
    if (answer.contains("errors") && answer["errors"].is_array()) {
      for (const json& e : answer["errors"]) {
        if (!e.is_string()) continue;
        detail += "; ";
        detail += e.get<std::string>();
      }
    }
  } else {
    detail = BodyExcerpt(response.body);
  }
  return FailureOutcome(response,
                        ErrorText(kChannel, response.status, detail, settings_.routing_key));
}

core::Result<BuiltChannel> PagerDutyKind::Build(Settings settings, const ChannelBuild& build) {
  settings.timeouts = build.timeouts;
  settings.group_limit = build.group_limit;
  return Built(PagerDutyChannel::Create(std::move(settings)));
}

}  // namespace quell::channels
