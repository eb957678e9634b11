#include "quell/adapters/channels/opsgenie/opsgenie_channel.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "quell/adapters/channels/opsgenie/opsgenie_kind.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/delivery/message_limits.h"
#include "quell/core/text/hex.h"
#include "quell/core/text/sha256.h"
#include "quell/core/text/url.h"
#include "quell/core/text/utf8.h"

namespace quell::channels {
namespace {

using nlohmann::json;
constexpr std::string_view kChannel = "opsgenie";
// The Alert API's documented field limits (https://docs.opsgenie.com/docs/alert-api), in
// characters.
constexpr size_t kMaxAliasChars = 512;
constexpr size_t kMaxTagChars = 50;
constexpr size_t kMaxDetailsChars = 8000;  // keys and values of `details` together
constexpr size_t kMaxEntityChars = 512;
constexpr size_t kMaxSourceChars = 100;
constexpr size_t kMaxNoteChars = 25000;

std::string Hex(std::string_view data) { return core::HexOf(core::Sha256(data)); }

// Code points of `text`; an invalid byte counts as one, as CutToChars counts.
size_t Chars(std::string_view text) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); i += std::max<size_t>(1, core::Utf8SequenceLength(text, i))) {
    ++chars;
  }
  return chars;
}

std::string StringOf(const json& j, const char* name) {
  return j.is_object() && j.contains(name) && j[name].is_string() ? j[name].get<std::string>()
                                                                  : std::string();
}

// Adds name=value to `details` while the whole stays within Opsgenie's 8000 characters.
void AddDetail(json& details, size_t& used, const std::string& name, const std::string& value) {
  const size_t size = Chars(name) + Chars(value);
  if (name.empty() || used + size > kMaxDetailsChars) return;
  used += size;
  details[name] = value;
}

// What Opsgenie keeps as the alert's custom properties: quell's references first (they fit
// always), then the incident's labels, or the group's counts, as long as they fit.
json Details(const core::Delivery& delivery, bool group) {
  const core::OutboxRow& row = delivery.row;
  json details = json::object();
  size_t used = 0;
  const core::MessageKind kind = core::MessageKindOf(row);
  AddDetail(details, used, "quell_kind", group ? "group" : core::MessageKindName(kind));
  AddDetail(details, used, "quell_key", Truncate(row.key, 1000));
  AddDetail(details, used, "quell_generation", std::to_string(row.generation));
  AddDetail(details, used, "quell_transition", core::TransitionName(row.transition));
  AddDetail(details, used, "quell_idempotency_key", row.idempotency_key);
  if (group) {
    const core::GroupSnapshot& g = delivery.content.group;
    if (g.sequence) AddDetail(details, used, "sequence", std::to_string(*g.sequence));
    if (g.open_after) AddDetail(details, used, "open_after", std::to_string(*g.open_after));
    for (const auto& [name, count] : g.counts) {
      AddDetail(details, used, "count_" + name, std::to_string(count));
    }
    return details;
  }
  const core::IncidentSnapshot& incident = delivery.content.incident;
  AddDetail(details, used, "quell_condition", incident.condition);
  for (const auto& [name, value] : incident.labels) AddDetail(details, used, name, value);
  return details;
}

json Tags(const core::Delivery& delivery, bool group) {
  json tags = json::array({"quell"});
  const auto add = [&](const std::string& tag) {
    if (!tag.empty()) tags.push_back(core::CutToChars(core::OneLine(tag), kMaxTagChars));
  };
  add(delivery.message.severity);
  if (group) {
    add("group");
  } else {
    add(delivery.content.incident.condition);
  }
  return tags;
}

// Opsgenie's error answer: {"message":"Request body is not processable. Please check the
// errors.","errors":{"message":"Message can not be empty."},"took":0.001,"requestId":"..."}.
std::string ErrorDetail(const json& answer, std::string_view body) {
  std::string detail = StringOf(answer, "message");
  if (detail.empty()) return BodyExcerpt(body);
  if (answer.contains("errors") && answer["errors"].is_object()) {
    for (const auto& [field, why] : answer["errors"].items()) {
      detail += "; " + field + ": " + (why.is_string() ? why.get<std::string>() : why.dump());
    }
  }
  return Truncate(detail, 500);
}

// The wait a 429 asks for: Retry-After when the answer has one, else the length of the
// throttled period Opsgenie names (X-RateLimit-Period-In-Sec: 1 or 60), after which its token
// bucket has refilled (https://docs.opsgenie.com/docs/api-rate-limiting).
std::optional<core::Duration> ThrottleWait(const core::HttpResponse& response) {
  if (auto after = RetryAfterOf(response)) return after;
  const std::string_view period = core::FindHeader(response.headers, "X-RateLimit-Period-In-Sec");
  if (period.empty() || period.size() > 6 ||
      period.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  return std::chrono::seconds(std::stoi(std::string(period)));
}

}  // namespace

std::string OpsgenieAlias(const core::OutboxRow& row) {
  std::string alias =
      core::IsGroupRow(row) ? row.key : row.key + ":" + std::to_string(row.generation);
  if (Chars(alias) <= kMaxAliasChars) return alias;
  // 512 - 33 bytes are at most that many characters; "~" and 32 hex digits follow.
  const std::string digest = Hex(alias).substr(0, 32);
  alias.resize(core::Utf8CutPoint(alias, kMaxAliasChars - 33));
  return alias + "~" + digest;
}

const char* OpsgeniePriority(std::string_view severity) {
  if (severity == "fatal" || severity == "critical") return "P1";
  if (severity == "warning") return "P3";
  if (severity == "info") return "P4";
  return "P2";  // error, and any word Opsgenie would not know: it still pages
}

core::Result<std::unique_ptr<OpsgenieChannel>> OpsgenieChannel::Create(OpsgenieSettings settings) {
  if (auto s = CheckHttpUrl(kChannel, "api_url", settings.api_url); !s.ok()) return s.error();
  if (auto s = CheckTimeouts(kChannel, settings.timeouts); !s.ok()) return s.error();
  if (auto s = CheckSetting(kChannel, "api_key", settings.api_key); !s.ok()) return s.error();
  if (auto s = CheckSetting(kChannel, "source", settings.source); !s.ok()) return s.error();
  if (Chars(settings.source) > kMaxSourceChars) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "opsgenie: source passes Opsgenie's 100 characters");
  }
  while (settings.api_url.ends_with('/')) settings.api_url.pop_back();
  return std::unique_ptr<OpsgenieChannel>(new OpsgenieChannel(std::move(settings)));
}

core::Result<core::HttpRequest> OpsgenieChannel::Encode(const core::Delivery& delivery,
                                                        core::WallTime /*now*/) const {
  const core::OutboxRow& row = delivery.row;
  const core::RenderedMessage& message = delivery.message;
  const std::string alias = OpsgenieAlias(row);
  const bool group = core::IsGroupRow(row);
  bool close = row.transition == core::TransitionKind::kResolve;
  if (group) close = delivery.content.group.open_after.value_or(0) == 0;
  const std::string headline =
      core::OneLine(message.subject.empty() ? message.body : message.subject);
  std::string url = settings_.api_url + "/v2/alerts";
  json body;
  if (close) {
    url += "/" + core::UrlEncode(alias) + "/close?identifierType=alias";
    body = {{"source", settings_.source},
            {"note",
             core::CutToChars(headline.empty() ? "resolved in quell" : headline, kMaxNoteChars)}};
  } else {
    body = {{"message", core::CutToChars(headline.empty() ? row.key : headline,
                                         core::kOpsgenieMessageMaxChars)},
            {"alias", alias},
            {"description", core::CutToChars(message.body, core::kOpsgenieDescriptionMaxChars)},
            {"priority", OpsgeniePriority(message.severity)},
            {"source", settings_.source},
            {"entity", core::CutToChars(row.key, kMaxEntityChars)},
            {"tags", Tags(delivery, group)},
            {"details", Details(delivery, group)}};
  }
  core::HttpRequest request =
      PostRequest(std::move(url), "application/json",
                  body.dump(-1, ' ', false, json::error_handler_t::replace), settings_.timeouts);
  request.headers.emplace_back("Authorization", "GenieKey " + settings_.api_key);
  return request;
}

core::SendOutcome OpsgenieChannel::Decode(const core::Delivery& delivery,
                                          const core::HttpResponse& response) const {
  const json answer = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kSent) {
    // 202 {"result":"Request will be processed","took":0.2,"requestId":"..."}: accepted, to
    // be processed asynchronously; the alias is what later requests name the alert by.
    const std::string request_id = StringOf(answer, "requestId");
    return core::SendOutcome::Sent(request_id.empty() ? OpsgenieAlias(delivery.row) : request_id);
  }
  std::string error =
      ErrorText(kChannel, response.status, ErrorDetail(answer, response.body), settings_.api_key);
  if (response.status == 429)
    return core::SendOutcome::Throttled(std::move(error), ThrottleWait(response));
  return FailureOutcome(response, std::move(error));
}

core::Result<BuiltChannel> OpsgenieKind::Build(Settings settings, const ChannelBuild& build) {
  settings.timeouts = build.timeouts;
  return Built(OpsgenieChannel::Create(std::move(settings)));
}

}  // namespace quell::channels
