#include "quell/adapters/sentry/sentry_answers.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "quell/adapters/jsonl/upstream_json.h"
#include "quell/core/redact/redact.h"
#include "quell/core/text/time.h"

namespace quell::sentry {
namespace {

using core::ErrorCode;
using nlohmann::json;

std::string Excerpt(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  return std::string(text.substr(0, limit)) + "...";
}

core::Error Corrupt(std::string_view what, const std::string& where, std::string_view problem) {
  return core::MakeError(ErrorCode::kCorrupt, "sentry: " + std::string(what) + ": " + where + ": " +
                                                  std::string(problem));
}

// The JSON text of a value, short, for saying what arrived instead.
std::string Shown(const json& value) { return Excerpt(value.dump(), 40); }

// A required string field; kCorrupt when absent, null or of another type.
core::Result<std::string> RequiredString(const json& item, const char* name,
                                         const std::string& where, std::string_view what) {
  const auto it = item.find(name);
  if (it == item.end()) return Corrupt(what, where + "." + name, "missing");
  if (!it->is_string())
    return Corrupt(what, where + "." + name, "expected a string, got " + Shown(*it));
  return it->get<std::string>();
}

// An optional string field: empty when absent or null, kCorrupt for another type.
core::Result<std::string> OptionalString(const json& item, const char* name,
                                         const std::string& where, std::string_view what) {
  const auto it = item.find(name);
  if (it == item.end() || it->is_null()) return std::string();
  if (!it->is_string())
    return Corrupt(what, where + "." + name, "expected a string, got " + Shown(*it));
  return it->get<std::string>();
}

core::Result<core::WallTime> RequiredTime(const json& item, const char* name,
                                          const std::string& where, std::string_view what) {
  auto text = RequiredString(item, name, where, what);
  if (!text) return text.error();
  auto at = core::ParseRfc3339(*text);
  if (!at) return Corrupt(what, where + "." + name, "not an RFC 3339 time: " + Excerpt(*text, 40));
  return *at;
}

core::Status ReadIssue(const json& item, const std::string& where, std::string_view what,
                       core::ErrorGroup& group) {
  if (!item.is_object())
    return Corrupt(what, where, "expected an issue object, got " + Shown(item));
  auto id = RequiredString(item, "id", where, what);
  if (!id) return id.error();
  if (id->empty()) return Corrupt(what, where + ".id", "empty");
  group.id = std::move(*id);
  auto title = RequiredString(item, "title", where, what);
  if (!title) return title.error();
  group.title = std::move(*title);
  auto status = RequiredString(item, "status", where, what);
  if (!status) return status.error();
  group.resolved = *status != "unresolved";
  // Sentry sends the event count as a string (it may pass 2^53); a number here is drift.
  const auto count = item.find("count");
  if (count == item.end()) return Corrupt(what, where + ".count", "missing");
  const bool digits = count->is_string() && !count->get_ref<const std::string&>().empty() &&
                      std::all_of(count->get_ref<const std::string&>().begin(),
                                  count->get_ref<const std::string&>().end(),
                                  [](char c) { return c >= '0' && c <= '9'; });
  if (!digits)
    return Corrupt(what, where + ".count", "expected a string of digits, got " + Shown(*count));
  const std::string& count_text = count->get_ref<const std::string&>();
  if (count_text.size() > 19) return Corrupt(what, where + ".count", "too large: " + count_text);
  group.count = std::stoull(count_text);
  auto first_seen = RequiredTime(item, "firstSeen", where, what);
  if (!first_seen) return first_seen.error();
  group.first_seen = *first_seen;
  auto last_seen = RequiredTime(item, "lastSeen", where, what);
  if (!last_seen) return last_seen.error();
  group.last_seen = *last_seen;
  auto level = OptionalString(item, "level", where, what);
  if (!level) return level.error();
  group.level = std::move(*level);
  for (const auto& [field, name] :
       {std::pair{"short_id", "shortId"}, std::pair{"culprit", "culprit"},
        std::pair{"permalink", "permalink"}}) {
    auto value = OptionalString(item, name, where, what);
    if (!value) return value.error();
    if (!value->empty()) group.fields.emplace_back(field, std::move(*value));
  }
  if (const auto project = item.find("project"); project != item.end() && !project->is_null()) {
    if (!project->is_object()) {
      return Corrupt(what, where + ".project", "expected an object, got " + Shown(*project));
    }
    auto slug = OptionalString(*project, "slug", where + ".project", what);
    if (!slug) return slug.error();
    if (!slug->empty()) group.fields.emplace_back("project", std::move(*slug));
  }
  group.fields.emplace_back("status", *status);
  std::sort(group.fields.begin(), group.fields.end());
  return {};
}

}  // namespace

core::Error StatusError(const core::HttpResponse& response, std::string_view what) {
  const int status = response.status;
  ErrorCode code = ErrorCode::kRejected;
  if (status == 401 || status == 403) code = ErrorCode::kPermissionDenied;
  if (status == 404) code = ErrorCode::kNotFound;
  if (status == 429 || status >= 500) code = ErrorCode::kUnavailable;
  std::string message = "sentry: " + std::string(what) + ": HTTP " + std::to_string(status);
  // Sentry states why as {"detail": "..."}; a proxy in front of it may quote what it refused,
  // so the words are redacted where they become quell's text.
  const json doc = jsonl::ParseUpstreamJson(response.body);
  if (doc.is_object()) {
    if (const auto detail = doc.find("detail"); detail != doc.end() && detail->is_string()) {
      message += ": " + core::RedactErrorText(Excerpt(detail->get_ref<const std::string&>(), 300));
    }
  }
  if (!response.retry_note.empty()) message += " (" + response.retry_note + ")";
  return core::MakeError(code, std::move(message));
}

core::Result<std::vector<core::ErrorGroup>> ParseIssuePage(std::string_view body,
                                                           std::string_view what) {
  const json doc = jsonl::ParseUpstreamJson(body);
  if (doc.is_discarded()) return Corrupt(what, "body", "not JSON");
  if (!doc.is_array())
    return Corrupt(what, "body", "expected a JSON array of issues, got " + Shown(doc));
  std::vector<core::ErrorGroup> groups;
  groups.reserve(doc.size());
  for (size_t i = 0; i < doc.size(); ++i) {
    core::ErrorGroup group;
    if (auto read = ReadIssue(doc[i], "issues[" + std::to_string(i) + "]", what, group); !read) {
      return read.error();
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

core::Result<LatestEvent> ParseLatestEvent(std::string_view body, std::string_view what) {
  const json doc = jsonl::ParseUpstreamJson(body);
  if (doc.is_discarded()) return Corrupt(what, "body", "not JSON");
  if (!doc.is_object()) return Corrupt(what, "body", "expected an event object, got " + Shown(doc));
  LatestEvent out;
  auto id = OptionalString(doc, "eventID", "event", what);
  if (!id) return id.error();
  out.event.event_id = std::move(*id);
  auto created = OptionalString(doc, "dateCreated", "event", what);
  if (!created) return created.error();
  if (auto at = core::ParseRfc3339(*created); !created->empty() && at) out.event.at = *at;
  auto message = OptionalString(doc, "message", "event", what);
  if (!message) return message.error();
  out.event.message = std::move(*message);
  if (const auto metadata = doc.find("metadata"); metadata != doc.end() && metadata->is_object()) {
    const std::string type = metadata->value("type", "");
    const std::string value = metadata->value("value", "");
    out.event.exception = type.empty() ? value : value.empty() ? type : type + ": " + value;
  }
  const auto tags = doc.find("tags");
  if (tags == doc.end()) return Corrupt(what, "event.tags", "missing");
  if (!tags->is_array())
    return Corrupt(what, "event.tags", "expected an array, got " + Shown(*tags));
  for (size_t i = 0; i < tags->size(); ++i) {
    const json& tag = (*tags)[i];
    const std::string where = "event.tags[" + std::to_string(i) + "]";
    if (!tag.is_object()) return Corrupt(what, where, "expected {key, value}, got " + Shown(tag));
    auto key = RequiredString(tag, "key", where, what);
    if (!key) return key.error();
    auto value = OptionalString(tag, "value", where, what);
    if (!value) return value.error();
    if (std::none_of(out.tags.begin(), out.tags.end(),
                     [&](const auto& kv) { return kv.first == *key; })) {
      out.tags.emplace_back(std::move(*key), std::move(*value));
    }
  }
  std::sort(out.tags.begin(), out.tags.end());
  return out;
}

}  // namespace quell::sentry
