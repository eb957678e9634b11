#include "quell/adapters/channels/pagerduty_channel.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "quell/core/delivery/callback_key.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"

namespace quell::channels {
namespace {

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
json GroupDetails(const json& payload, size_t limit, uint64_t& open_after) {
  json details = json::object();
  open_after = 0;
  if (!payload.is_object() || !payload.contains("group") || !payload["group"].is_object()) {
    return details;
  }
  const json& group = payload["group"];
  for (const char* name :
       {"key", "channel", "sequence", "episode", "labels", "counts", "open_after", "standing"}) {
    if (group.contains(name)) details[name] = group[name];
  }
  if (group.contains("open_after") && group["open_after"].is_number_unsigned()) {
    open_after = group["open_after"].get<uint64_t>();
  }
  json members = json::array();
  size_t total = 0;
  if (group.contains("members") && group["members"].is_array()) {
    total = group["members"].size();
    for (const json& m : group["members"]) {
      if (members.size() >= limit) break;
      if (!m.is_object()) continue;
      members.push_back({{"key", m.value("key", "")}, {"transition", m.value("transition", "")}});
    }
  }
  details["members_more"] = total - members.size();
  details["members"] = std::move(members);
  return details;
}

}  // namespace

std::string PagerDutyDedupKey(const core::OutboxRow& row) {
  if (!core::IsGroupRow(row)) return core::IncidentCallbackKey(row.key, row.generation);
  const json payload = json::parse(row.payload, nullptr, /*allow_exceptions=*/false);
  uint64_t episode = 0;
  if (payload.is_object() && payload.contains("group") && payload["group"].is_object()) {
    const json& group = payload["group"];
    if (group.contains("episode") && group["episode"].is_number_unsigned()) {
      episode = group["episode"].get<uint64_t>();
    }
  }
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
  const std::string dedup_key = PagerDutyDedupKey(row);
  if (dedup_key.size() > kMaxDedupKeyBytes) {
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        "pagerduty: the dedup key of " + row.idempotency_key + " passes PagerDuty's 255 bytes");
  }
  const bool group = core::IsGroupRow(row);
  uint64_t open_after = 0;
  json group_details;
  if (group) {
    group_details = GroupDetails(json::parse(row.payload, nullptr, /*allow_exceptions=*/false),
                                 settings_.group_limit, open_after);
  }
  const bool resolve = group ? open_after == 0 : row.transition == core::TransitionKind::kResolve;
  json body = {{"routing_key", settings_.routing_key},
               {"event_action", resolve ? "resolve" : "trigger"},
               {"dedup_key", dedup_key},
               {"client", "quell"}};
  if (!resolve) {
    const core::RenderedMessage& message = delivery.message;
    const std::string& summary = message.subject.empty() ? message.body : message.subject;
    json details = group ? std::move(group_details)
                         : json::parse(row.payload, nullptr, /*allow_exceptions=*/false);
    if (details.is_discarded()) details = json::object();
    details["quell_idempotency_key"] = row.idempotency_key;
    const core::MessageKind kind = core::MessageKindOf(row);
    details["kind"] = core::MessageKindName(kind);
    if (group) details["kind"] = "group";
    if (kind != core::MessageKind::kDeadLetter) {
      details["transition"] = core::TransitionName(row.transition);
    }
    body["payload"] = {{"summary", Truncate(summary.empty() ? row.key : summary, kMaxSummaryBytes)},
                       {"source", settings_.source.empty() ? row.key : settings_.source},
                       {"severity", Severity(message.severity)},
                       {"custom_details", std::move(details)}};
    // A pushed alert's runbook, as a link on the PagerDuty incident.
    json links = json::array();
    for (const core::MessageLink& link : message.links) {
      links.push_back({{"href", link.url}, {"text", link.text}});
    }
    if (!links.empty()) body["links"] = std::move(links);
  }
  return PostRequest(settings_.base_url + "/v2/enqueue", "application/json",
                     body.dump(-1, ' ', false, json::error_handler_t::replace), settings_.timeouts);
}

core::SendOutcome PagerDutyChannel::Decode(const core::Delivery& delivery,
                                           const core::HttpResponse& response) const {
  const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    if (answer.is_object() && answer.contains("dedup_key") && answer["dedup_key"].is_string()) {
      return core::SendOutcome::Sent(answer["dedup_key"].get<std::string>());
    }
    return core::SendOutcome::Sent(PagerDutyDedupKey(delivery.row));
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

}  // namespace quell::channels
