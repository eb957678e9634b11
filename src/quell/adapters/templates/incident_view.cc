#include "quell/adapters/templates/incident_view.h"

#include <nlohmann/json.hpp>

#include "quell/core/delivery/message_limits.h"
#include "quell/core/text/url.h"

namespace quell::templates {
namespace {

using nlohmann::json;

std::string StringField(const json& doc, const char* name) {
  const auto it = doc.find(name);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

uint64_t NumberField(const json& doc, const char* name) {
  const auto it = doc.find(name);
  return it != doc.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

IncidentView::Example MakeExample(const json& evidence, size_t max_chars) {
  IncidentView::Example example;
  example.json = evidence.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string text;
  if (evidence.is_object()) {
    text = StringField(evidence, "title");
    if (text.empty()) text = StringField(evidence, "message");
  } else if (evidence.is_string()) {
    text = evidence.get<std::string>();
  }
  if (text.empty()) text = example.json;
  example.text = core::CutToChars(core::OneLine(text), max_chars);
  return example;
}

// "2026-12-02T09:00:00Z" -> "2026-12-02 09:00 UTC"; anything else as it is.
std::string MinuteText(const std::string& rfc3339) {
  if (rfc3339.size() < 16 || rfc3339[10] != 'T' || !rfc3339.ends_with('Z')) return rfc3339;
  return rfc3339.substr(0, 10) + " " + rfc3339.substr(11, 5) + " UTC";
}

}  // namespace

std::string HumanDuration(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  const int64_t days = seconds / 86400;
  const int64_t hours = seconds % 86400 / 3600;
  const int64_t minutes = seconds % 3600 / 60;
  if (days > 0) return std::to_string(days) + "d " + std::to_string(hours) + "h";
  if (hours > 0) return std::to_string(hours) + "h " + std::to_string(minutes) + "m";
  if (minutes > 0) return std::to_string(minutes) + "m";
  return std::to_string(seconds) + "s";
}

core::Result<IncidentView> ParseIncidentView(std::string_view payload, const ViewOptions& options) {
  const json doc = json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("key") || !doc["key"].is_string()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "the outbox payload is not an incident snapshot (no string \"key\")");
  }
  IncidentView view;
  view.key = StringField(doc, "key");
  view.condition = StringField(doc, "condition");
  view.status = StringField(doc, "status");
  view.transition = StringField(doc, "transition");
  view.generation = NumberField(doc, "generation");
  view.version = NumberField(doc, "version");
  view.opened_at = StringField(doc, "opened_at");
  view.first_seen_at = StringField(doc, "first_seen_at");
  view.last_seen_at = StringField(doc, "last_seen_at");
  view.resolved_at = StringField(doc, "resolved_at");
  view.event_count = NumberField(doc, "event_count");
  if (const auto it = doc.find("opened_in_shadow"); it != doc.end() && it->is_boolean()) {
    view.opened_in_shadow = it->get<bool>();
  }
  if (view.opened_in_shadow) {
    view.open_for = HumanDuration(static_cast<int64_t>(NumberField(doc, "open_for_seconds")));
    view.open_since = MinuteText(view.opened_at);
  }
  if (const auto it = options.condition_severity.find(view.condition);
      it != options.condition_severity.end()) {
    view.severity = it->second;
  } else {
    view.severity = StringField(doc, "severity");
    if (view.severity.empty()) view.severity = options.default_severity;
  }
  // The store appends evidence, so the newest is last; a message shows it first.
  if (const auto it = doc.find("evidence"); it != doc.end() && it->is_array()) {
    for (auto e = it->rbegin(); e != it->rend() && view.examples.size() < options.max_examples;
         ++e) {
      view.examples.push_back(MakeExample(*e, options.max_example_chars));
    }
  }
  if (!options.link_base_url.empty()) view.link = options.link_base_url + core::UrlEncode(view.key);
  return view;
}

const std::vector<std::string>& ViewFieldNames() {
  static const std::vector<std::string> kNames = {"key",
                                                  "condition",
                                                  "severity",
                                                  "status",
                                                  "transition",
                                                  "generation",
                                                  "version",
                                                  "opened_at",
                                                  "first_seen_at",
                                                  "last_seen_at",
                                                  "resolved_at",
                                                  "event_count",
                                                  "examples",
                                                  "text",
                                                  "json",
                                                  "link",
                                                  "is_open",
                                                  "is_renotify",
                                                  "is_resolve",
                                                  "has_examples",
                                                  "transition_label",
                                                  "severity_upper",
                                                  "opened_in_shadow",
                                                  "open_for",
                                                  "open_since"};
  return kNames;
}

}  // namespace quell::templates
