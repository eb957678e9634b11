#include "quell/adapters/inputs/datadog_payload.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>

#include "quell/core/redact/redact_label.h"
#include "quell/core/text/json_escape.h"
#include "quell/core/text/time.h"

// The variables are those Datadog documents for its webhook integration
// (https://docs.datadoghq.com/integrations/webhooks/#variables): $ALERT_ID (the monitor's id),
// $ALERT_TRANSITION (Recovered, Triggered/Re-Triggered, No Data/Re-No Data, Warn/Re-Warn, Null,
// Renotify), $ALERT_SCOPE (the comma-separated tags of the group that triggered), $ALERT_TYPE
// (error, warning, success, info), $ALERT_TITLE, $EVENT_TITLE, $ALERT_STATUS, $ALERT_PRIORITY,
// $TEXT_ONLY_MSG, $LINK and $DATE (epoch milliseconds). The JSON field names around them are
// quell's own template's, which the user pastes into the integration's Payload box.

namespace quell::inputs {
namespace {

core::Error Invalid(const std::string& field, std::string_view problem) {
  return core::MakeError(core::ErrorCode::kInvalidArgument, field + ": " + std::string(problem));
}

// A field filled from a variable: a string, or (for $DATE or $ALERT_ID left unquoted) a number.
core::Status ReadText(simdjson::dom::element value, std::string_view name, std::string& out) {
  std::string_view text;
  if (!value.get_string().get(text)) {
    out.assign(text);
    return {};
  }
  int64_t number = 0;
  if (!value.get_int64().get(number)) {
    out = std::to_string(number);
    return {};
  }
  uint64_t unsigned_number = 0;
  if (!value.get_uint64().get(unsigned_number)) {
    out = std::to_string(unsigned_number);
    return {};
  }
  return Invalid(std::string(name), "must be a string");
}

// What a transition says of its group.
enum class Transition : uint8_t { kFires, kResolves, kNoData, kUnknown };

Transition TransitionOf(std::string_view text) {
  if (text == "Triggered" || text == "Re-Triggered" || text == "Warn" || text == "Re-Warn" ||
      text == "Renotify") {
    return Transition::kFires;
  }
  if (text == "Recovered") return Transition::kResolves;
  if (text == "No Data" || text == "Re-No Data" || text == "Null") return Transition::kNoData;
  return Transition::kUnknown;
}

std::string Evidence(const core::PushedAlert& alert, std::string_view starts_at,
                     const DatadogPayloadOptions& options) {
  std::string out = "{\"annotations\":{";
  bool first = true;
  for (const auto& [name, value] : alert.annotations) {
    if (!first) out.push_back(',');
    first = false;
    core::AppendJsonString(out, name);
    out.push_back(':');
    core::AppendJsonString(out, core::Redact(value, options.redact));
  }
  out += "}";
  if (!starts_at.empty()) {
    out += ",\"startsAt\":";
    core::AppendJsonString(out, starts_at);
  }
  out += alert.firing ? ",\"status\":\"firing\"}" : ",\"status\":\"resolved\"}";
  return out;
}

}  // namespace

core::Result<std::vector<core::PushedAlert>> ParseDatadogPayload(
    std::string_view body, const DatadogPayloadOptions& options) {
  const simdjson::padded_string padded(body);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(padded).get(root)) {
    return Invalid("body", std::string("bad JSON: ") + simdjson::error_message(error) +
                               " (is \"Encode as form\" unchecked?)");
  }
  simdjson::dom::object object;
  if (root.get_object().get(object)) return Invalid("body", "must be a JSON object");
  // Owned copies: numbers are rendered into them.
  std::string alert_id, transition, scope, type, title, event_title, status, priority, message,
      link, date;
  bool has_id = false;
  bool has_transition = false;
  for (auto [name, value] : object) {
    std::string* target = nullptr;
    if (name == "alert_id") {
      target = &alert_id;
      has_id = true;
    } else if (name == "alert_transition") {
      target = &transition;
      has_transition = true;
    } else if (name == "alert_scope") {
      target = &scope;
    } else if (name == "alert_type") {
      target = &type;
    } else if (name == "alert_title") {
      target = &title;
    } else if (name == "event_title") {
      target = &event_title;
    } else if (name == "alert_status") {
      target = &status;
    } else if (name == "alert_priority") {
      target = &priority;
    } else if (name == "event_msg") {
      target = &message;
    } else if (name == "link") {
      target = &link;
    } else if (name == "date") {
      target = &date;
    }
    if (target == nullptr) continue;
    if (auto read = ReadText(value, name, *target); !read) return read.error();
  }
  if (!has_id || alert_id.empty()) return Invalid("alert_id", "missing (\"$ALERT_ID\")");
  if (!has_transition) return Invalid("alert_transition", "missing (\"$ALERT_TRANSITION\")");
  const Transition kind = TransitionOf(transition);
  if (kind == Transition::kUnknown) {
    return Invalid("alert_transition",
                   "\"" + transition.substr(0, 40) +
                       "\" is not a transition Datadog documents (Triggered, Re-Triggered, Warn, "
                       "Re-Warn, Renotify, Recovered, No Data, Re-No Data, Null)");
  }
  std::vector<core::PushedAlert> out;
  if (kind == Transition::kNoData) return out;

  core::PushedAlert& alert = out.emplace_back();
  alert.firing = kind == Transition::kFires;
  // Unexpanded variables ("$ALERT_SCOPE" for a monitor without groups in some payloads) are
  // no values.
  const auto value_of = [](const std::string& text) {
    return text.starts_with('$') ? std::string() : text;
  };
  scope = value_of(scope);
  alert.labels.emplace_back("monitor_id", alert_id);
  alert.labels.emplace_back("scope", scope);
  if (type == "error" || type == "warning") alert.labels.emplace_back("severity", type);
  if (!value_of(priority).empty()) alert.labels.emplace_back("priority", priority);
  std::string_view rest = scope;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view tag = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    while (!tag.empty() && tag.front() == ' ') tag.remove_prefix(1);
    const size_t colon = tag.find(':');
    if (tag.empty() || colon == std::string_view::npos || colon == 0) continue;
    std::string name(tag.substr(0, colon));
    if (std::any_of(alert.labels.begin(), alert.labels.end(),
                    [&name](const auto& label) { return label.first == name; })) {
      continue;
    }
    alert.labels.emplace_back(std::move(name), std::string(tag.substr(colon + 1)));
  }
  std::sort(alert.labels.begin(), alert.labels.end());
  core::RedactLabels(alert.labels, options.redact);

  const std::string summary = !value_of(title).empty() ? title : value_of(event_title);
  const std::string description = !value_of(message).empty() ? message : value_of(status);
  const auto annotate = [&alert](const char* name, const std::string& value) {
    if (!value.empty()) alert.annotations.emplace_back(name, value);
  };
  annotate("description", description);
  annotate("link", value_of(link));
  annotate("summary", summary);
  annotate("transition", transition);
  std::sort(alert.annotations.begin(), alert.annotations.end());

  std::string starts_at;
  if (alert.firing && !value_of(date).empty()) {
    int64_t millis = 0;
    const char* end = date.data() + date.size();
    const auto [ptr, ec] = std::from_chars(date.data(), end, millis);
    // Up to the end of year 9999, which RFC 3339 can write (and which keeps the microseconds
    // of a WallTime from overflowing).
    constexpr int64_t kLastMillis = 253402300799999;
    if (ec != std::errc() || ptr != end || millis <= 0 || millis > kLastMillis) {
      return Invalid("date",
                     "expected epoch milliseconds (\"$DATE\"), got \"" + date.substr(0, 40) + "\"");
    }
    alert.starts_at = core::WallTime{std::chrono::milliseconds(millis)};
    starts_at = core::FormatRfc3339(*alert.starts_at);
  }
  alert.evidence = Evidence(alert, starts_at, options);
  if (alert.evidence.size() > options.limits.max_evidence_bytes) {
    return Invalid("event_msg", "the alert's evidence is " + std::to_string(alert.evidence.size()) +
                                    " bytes, more than " +
                                    std::to_string(options.limits.max_evidence_bytes) +
                                    " (limits.evidence_bytes)");
  }
  return out;
}

}  // namespace quell::inputs
