#include "quell/adapters/datadog/monitor_page.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "quell/adapters/jsonl/upstream_json.h"

// The shape is the one Datadog documents for "Get all monitors" (API v1,
// https://docs.datadoghq.com/api/latest/monitors/#get-all-monitors): an array of monitor
// objects {id, name, message, overall_state, tags, type, query, state: {groups: {<group name>:
// {name, status, last_triggered_ts, last_notified_ts, last_resolved_ts, last_nodata_ts}}}}, the
// group states Alert, Warn, OK, No Data, Unknown, Skipped and Ignored; errors as
// {"errors": ["..."]}.

namespace quell::datadog {
namespace {

using nlohmann::json;

std::string Excerpt(std::string_view text, size_t limit = 200) {
  if (text.size() <= limit) return std::string(text);
  return std::string(text.substr(0, limit)) + "...";
}

core::Error Corrupt(const std::string& where, std::string_view what) {
  return core::MakeError(core::ErrorCode::kCorrupt, "datadog: " + where + ": " + std::string(what));
}

// Datadog's {"errors": ["..."]}, joined; the body's head when it is something else.
std::string ErrorsOf(std::string_view body) {
  const json doc = jsonl::ParseUpstreamJson(body);
  std::string out;
  if (doc.is_object()) {
    const auto errors = doc.find("errors");
    if (errors != doc.end() && errors->is_array()) {
      for (const json& e : *errors) {
        if (!e.is_string()) continue;
        if (!out.empty()) out += "; ";
        out += e.get<std::string>();
      }
    }
  }
  if (out.empty()) out = std::string(body);
  return Excerpt(out);
}

core::Error StatusError(int status, std::string_view body) {
  const std::string words = ErrorsOf(body);
  std::string message = "datadog: HTTP " + std::to_string(status);
  if (!words.empty()) message += ": " + words;
  if (status == 401 || status == 403) {
    message += " (check datadog.api_key_env and datadog.app_key_env, and the site)";
  }
  const bool transient = status == 429 || status >= 500;
  return core::MakeError(transient ? core::ErrorCode::kUnavailable : core::ErrorCode::kRejected,
                         message);
}

std::string IdText(const json& id) {
  if (id.is_number_unsigned()) return std::to_string(id.get<uint64_t>());
  return std::to_string(id.get<int64_t>());
}

// One group's state from `value`'s `status_field` ("status" in state.groups, "overall_state" for
// a monitor without groups); `where` names `value` in errors.
core::Status ReadGroup(const std::string& where, const std::string& group_name, const json& value,
                       const char* status_field, core::MonitorGroup& group) {
  if (!value.is_object()) return Corrupt(where, "must be an object");
  const auto status = value.find(status_field);
  if (status == value.end() || !status->is_string()) {
    return Corrupt(where + "." + status_field, "missing or not a string");
  }
  group.group = group_name;
  group.status = status->get<std::string>();
  const std::optional<core::Health> health = HealthOfStatus(group.status);
  if (!health) {
    return Corrupt(where + "." + status_field,
                   "\"" + Excerpt(group.status, 40) +
                       "\" is not a state Datadog documents (Alert, Warn, OK, "
                       "No Data, Unknown, Skipped, Ignored)");
  }
  group.health = *health;
  group.level = group.status == "Alert" ? "error" : group.status == "Warn" ? "warning" : "";
  group.tags = TagsOfGroup(group_name);
  const auto triggered = value.find("last_triggered_ts");
  if (triggered != value.end() && triggered->is_number()) {
    const double seconds = triggered->get<double>();
    if (std::isfinite(seconds) && seconds > 0 && seconds < 9e9) {
      group.triggered_at = core::WallTime{
          core::Duration{static_cast<core::Duration::rep>(std::llround(seconds * 1e6))}};
    }
  }
  return {};
}

}  // namespace

std::optional<core::Health> HealthOfStatus(std::string_view status) {
  if (status == "Alert" || status == "Warn") return core::Health::kUnhealthy;
  if (status == "OK") return core::Health::kHealthy;
  if (status == "No Data" || status == "Unknown" || status == "Skipped" || status == "Ignored") {
    return core::Health::kUnknown;
  }
  return std::nullopt;
}

core::Labels TagsOfGroup(std::string_view group) {
  core::Labels tags;
  while (!group.empty()) {
    const size_t comma = group.find(',');
    std::string_view tag = group.substr(0, comma);
    group = comma == std::string_view::npos ? std::string_view{} : group.substr(comma + 1);
    while (!tag.empty() && tag.front() == ' ') tag.remove_prefix(1);
    if (tag.empty()) continue;
    const size_t colon = tag.find(':');
    std::string name(tag.substr(0, colon));
    std::string value(colon == std::string_view::npos ? std::string_view{} : tag.substr(colon + 1));
    if (std::none_of(tags.begin(), tags.end(),
                     [&name](const auto& t) { return t.first == name; })) {
      tags.emplace_back(std::move(name), std::move(value));
    }
  }
  std::stable_sort(tags.begin(), tags.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return tags;
}

core::Result<MonitorPage> ParseMonitorPage(int status, std::string_view body,
                                           std::string_view app_url) {
  if (status != 200) return StatusError(status, body);
  const json doc = jsonl::ParseUpstreamJson(body);
  if (doc.is_discarded()) return Corrupt("body", "not JSON: " + Excerpt(body, 80));
  if (!doc.is_array()) return Corrupt("body", "expected an array of monitors");
  MonitorPage page;
  page.monitors = doc.size();
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& monitor = doc[i];
    const std::string at = "monitors[" + std::to_string(i) + "]";
    if (!monitor.is_object()) return Corrupt(at, "must be an object");
    const auto id = monitor.find("id");
    if (id == monitor.end() || !id->is_number_integer()) {
      return Corrupt(at + ".id", "missing or not an integer");
    }
    const auto name = monitor.find("name");
    if (name == monitor.end() || !name->is_string()) {
      return Corrupt(at + ".name", "missing or not a string");
    }
    const auto overall = monitor.find("overall_state");
    if (overall == monitor.end() || !overall->is_string()) {
      return Corrupt(at + ".overall_state", "missing or not a string");
    }
    const auto state = monitor.find("state");
    if (state == monitor.end() || !state->is_object()) {
      return Corrupt(at + ".state", "missing (is group_states=all sent?) or not an object");
    }
    const auto groups = state->find("groups");
    if (groups == state->end() || !groups->is_object()) {
      return Corrupt(at + ".state.groups", "missing or not an object");
    }
    core::MonitorGroup base;
    base.monitor_id = IdText(*id);
    base.monitor_name = name->get<std::string>();
    if (!app_url.empty()) base.url = std::string(app_url) + "/monitors/" + base.monitor_id;
    if (groups->empty()) {
      // A simple monitor (no group-by) is its own single group.
      core::MonitorGroup group = base;
      if (auto read = ReadGroup(at, "*", monitor, "overall_state", group); !read) {
        return read.error();
      }
      group.tags.clear();
      page.groups.push_back(std::move(group));
      continue;
    }
    for (const auto& [group_name, value] : groups->items()) {
      core::MonitorGroup group = base;
      const std::string where = at + ".state.groups[\"" + Excerpt(group_name, 80) + "\"]";
      if (auto read = ReadGroup(where, group_name, value, "status", group); !read) {
        return read.error();
      }
      page.groups.push_back(std::move(group));
    }
  }
  return page;
}

}  // namespace quell::datadog
