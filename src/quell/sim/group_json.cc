#include "quell/sim/group_json.h"

#include <algorithm>

namespace quell::sim {

using nlohmann::json;

std::string StringField(const json& j, const char* key, std::string fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

Tags TagsField(const json& j, const char* key) {
  Tags tags;
  if (!j.is_object()) return tags;
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return tags;
  for (const auto& [k, v] : it->items()) tags[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return tags;
}

core::Result<core::WallTime> TimeField(const json& j, const char* key, core::WallTime fallback) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_string()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           std::string(key) + " must be an RFC 3339 string");
  }
  auto t = core::ParseRfc3339(j[key].get<std::string>());
  if (!t.ok()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           std::string(key) + ": " + t.error().message);
  }
  return *t;
}

json EventToJson(const Event& e) {
  return json{{"event_id", e.event_id}, {"timestamp", core::FormatRfc3339(e.timestamp)},
              {"message", e.message},   {"exception", e.exception},
              {"context", e.context},   {"tags", e.tags}};
}

json GroupToJson(const Group& g) {
  json j = {{"error_group_id", g.id},
            {"fingerprint", g.fingerprint},
            {"title", g.title},
            {"message", g.message},
            {"level", g.level},
            {"status", g.resolved ? "resolved" : "unresolved"},
            {"is_resolved", g.resolved},
            {"count", g.count},
            {"first_seen", core::FormatRfc3339(g.first_seen)},
            {"last_seen", core::FormatRfc3339(g.last_seen)},
            {"environment", g.environment},
            {"release", g.release},
            {"service", g.service},
            {"tags", g.tags}};
  j["resolved_at"] = g.resolved_at ? json(core::FormatRfc3339(*g.resolved_at)) : json(nullptr);
  return j;
}

json GroupDetailToJson(const Group& g, size_t recent) {
  json j = GroupToJson(g);
  if (g.events.empty()) {
    j["representative_event"] = nullptr;
    j["latest_event"] = nullptr;
    j["events"] = json::array();
    return j;
  }
  j["representative_event"] = EventToJson(g.events.front());
  j["latest_event"] = EventToJson(g.events.back());
  json events = json::array();
  size_t n = std::min(recent, g.events.size());
  for (size_t i = 0; i < n; ++i) events.push_back(EventToJson(g.events[g.events.size() - 1 - i]));
  j["events"] = std::move(events);
  return j;
}

core::Result<Group> GroupFromJson(const json& j, core::WallTime now) {
  if (!j.is_object()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument, "a group must be a JSON object");
  }
  Group g;
  if (j.contains("fingerprint") && j["fingerprint"].is_array()) {
    for (const auto& part : j["fingerprint"]) {
      g.fingerprint.push_back(part.is_string() ? part.get<std::string>() : part.dump());
    }
  }
  g.title = StringField(j, "title");
  g.message = StringField(j, "message", g.title);
  if (g.title.empty()) g.title = g.message;
  if (!g.fingerprint.empty()) {
    // A capture with the same fingerprint then lands on this group, as on the real service.
    std::string key = "fp";
    for (const auto& part : g.fingerprint) key += "\x1f" + part;
    g.grouping_key = key;
  }
  g.id = StringField(j, "error_group_id", StringField(j, "id"));
  if (g.id.empty() && !g.grouping_key.empty()) g.id = GroupIdForKey(g.grouping_key);
  if (g.id.empty()) {
    std::string key = "admin\x1f" + g.title;
    for (const auto& part : g.fingerprint) key += "\x1f" + part;
    g.id = GroupIdForKey(key);
  }
  g.level = StringField(j, "level", "error");
  std::string status = StringField(j, "status", "unresolved");
  if (status != "unresolved" && status != "resolved") {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "status must be \"unresolved\" or \"resolved\"");
  }
  g.resolved = status == "resolved";
  g.environment = StringField(j, "environment", "production");
  g.release = StringField(j, "release");
  g.service = StringField(j, "service");
  g.tags = TagsField(j, "tags");
  if (j.contains("count") && j["count"].is_number_integer()) g.count = j["count"].get<int64_t>();
  auto first = TimeField(j, "first_seen", now);
  if (!first.ok()) return first.error();
  auto last = TimeField(j, "last_seen", *first > now ? *first : now);
  if (!last.ok()) return last.error();
  g.first_seen = *first;
  g.last_seen = *last;
  if (g.resolved) {
    auto at = TimeField(j, "resolved_at", now);
    if (!at.ok()) return at.error();
    g.resolved_at = *at;
  }
  return g;
}

}  // namespace quell::sim
