#include "nlohmann_reference_codec.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "quell/adapters/jsonl/message_codec.h"

// The outbox codec's decoding as it was before it moved to simdjson (json_tree.h): every
// payload parsed into nlohmann-json's DOM and read from there. Kept only here, as the reference
// the new decoding is held to, byte for byte.
namespace quell::jsonl::reference {
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

bool IsString(const json& doc, const char* name) {
  const auto it = doc.find(name);
  return it != doc.end() && it->is_string();
}

std::optional<uint64_t> OptionalNumber(const json& doc, const char* name) {
  const auto it = doc.find(name);
  if (it == doc.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<uint64_t>();
}

// A string field, or a number's digits (the evidence builder writes every value as a string).
std::string TextField(const json& doc, const char* name) {
  const auto it = doc.find(name);
  if (it == doc.end()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_unsigned()) return std::to_string(it->get<uint64_t>());
  return {};
}

// A number as a message writes it: an integer's digits, else six significant digits.
std::string NumberWords(const json& value) {
  if (value.is_number_integer() || value.is_number_unsigned()) return value.dump();
  if (!value.is_number()) return {};
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value.get<double>());
  return buffer;
}

std::string Compact(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::vector<std::pair<std::string, std::string>> StringMembers(const json& object) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : object.items()) {
    if (value.is_string()) out.emplace_back(name, value.get<std::string>());
  }
  return out;  // nlohmann's objects iterate in name order
}

core::MessageEvidence EvidenceOf(const json& item) {
  core::MessageEvidence e;
  e.json = Compact(item);
  if (item.is_string()) e.text = item.get<std::string>();
  if (!item.is_object()) return e;
  e.is_object = true;
  e.title = StringField(item, "title");
  e.message = StringField(item, "message");
  e.culprit = StringField(item, "culprit");
  e.exception = StringField(item, "exception");
  e.level = StringField(item, "level");
  e.last_seen = StringField(item, "last_seen");
  e.count = TextField(item, "count");
  e.permalink = StringField(item, "permalink");
  e.panel_url = StringField(item, "panelURL");
  e.dashboard_url = StringField(item, "dashboardURL");
  e.generator_url = StringField(item, "generatorURL");
  e.starts_at = StringField(item, "startsAt");
  if (const auto it = item.find("tags"); it != item.end() && it->is_object()) {
    e.tags = StringMembers(*it);
  }
  if (item.contains("threshold") && item.contains("value")) {
    e.is_metric = true;
    e.metric = StringField(item, "metric");
    e.direction = StringField(item, "direction");
    e.value = NumberWords(item["value"]);
    e.threshold = NumberWords(item["threshold"]);
    if (const auto it = item.find("recovery"); it != item.end() && it->is_number()) {
      e.recovery = NumberWords(*it);
    }
  }
  const auto annotations = item.find("annotations");
  const auto status = item.find("status");
  e.is_alert = !item.contains("title") && annotations != item.end() && annotations->is_object() &&
               status != item.end() && status->is_string();
  if (annotations != item.end() && annotations->is_object()) {
    e.summary = StringField(*annotations, "summary");
    e.old_message = StringField(*annotations, "message");
    e.description = StringField(*annotations, "description");
    e.runbook_url = StringField(*annotations, "runbook_url");
  }
  return e;
}

core::Result<core::IncidentSnapshot> SnapshotOf(const json& doc) {
  if (!doc.is_object() || !doc.contains("key") || !doc["key"].is_string()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "the outbox payload is not an incident snapshot (no string \"key\")");
  }
  core::IncidentSnapshot s;
  s.key = StringField(doc, "key");
  s.condition = StringField(doc, "condition");
  s.status = StringField(doc, "status");
  s.transition = StringField(doc, "transition");
  s.generation = OptionalNumber(doc, "generation");
  s.version = OptionalNumber(doc, "version");
  s.opened_at = StringField(doc, "opened_at");
  s.first_seen_at = StringField(doc, "first_seen_at");
  s.last_seen_at = StringField(doc, "last_seen_at");
  s.resolved_at = StringField(doc, "resolved_at");
  s.event_count = OptionalNumber(doc, "event_count");
  s.severity = StringField(doc, "severity");
  if (const auto it = doc.find("labels"); it != doc.end() && it->is_object()) {
    s.has_labels = true;
    s.labels = StringMembers(*it);
  }
  s.upstream_count = TextField(doc, "upstream_count");
  s.upstream_count_since_last_message = TextField(doc, "upstream_count_since_last_message");
  s.upstream_count_quoted = IsString(doc, "upstream_count");
  s.since_last_message_quoted = IsString(doc, "upstream_count_since_last_message");
  s.has_condition = IsString(doc, "condition");
  s.has_status = IsString(doc, "status");
  s.has_transition = IsString(doc, "transition");
  if (const auto it = doc.find("evidence"); it != doc.end() && it->is_array()) {
    s.has_evidence = true;
    s.evidence.reserve(it->size());
    for (const json& item : *it) s.evidence.push_back(EvidenceOf(item));
  }
  if (const auto it = doc.find("opened_in_shadow"); it != doc.end() && it->is_boolean()) {
    s.opened_in_shadow = it->get<bool>();
  }
  s.opened_in_maintenance = StringField(doc, "opened_in_maintenance");
  s.held_behind = StringField(doc, "held_behind");
  s.announced_at = StringField(doc, "announced_at");
  if (const auto it = doc.find("open_for_seconds"); it != doc.end() && it->is_number_unsigned()) {
    s.has_open_for = true;
    s.open_for_seconds = it->get<uint64_t>();
  }
  return s;
}

core::Result<core::GroupSnapshot> GroupOf(const json& doc) {
  if (!doc.is_object() || !doc.contains("group") || !doc["group"].is_object()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "the outbox payload is not a group message (no \"group\" object)");
  }
  const json& g = doc["group"];
  core::GroupSnapshot group;
  group.key = StringField(g, "key");
  group.channel = StringField(g, "channel");
  group.sequence = OptionalNumber(g, "sequence");
  group.episode = OptionalNumber(g, "episode");
  group.open_after = OptionalNumber(g, "open_after");
  if (const auto it = g.find("labels"); it != g.end() && it->is_object()) {
    group.has_labels = true;
    group.labels = StringMembers(*it);
  }
  if (const auto it = g.find("counts"); it != g.end() && it->is_object()) {
    group.has_counts = true;
    for (const auto& [name, value] : it->items()) {
      group.counts.emplace_back(name, value.is_number_unsigned() ? value.get<uint64_t>() : 0);
    }
  }
  if (const auto it = g.find("standing"); it != g.end() && it->is_object()) {
    group.standing =
        core::GroupSnapshot::Standing{NumberField(*it, "open"), NumberField(*it, "silenced")};
  }
  if (const auto it = g.find("members"); it != g.end() && it->is_array()) {
    group.members.reserve(it->size());
    for (const json& member : *it) {
      core::Result<core::IncidentSnapshot> snapshot = SnapshotOf(member);
      if (!snapshot) return snapshot.error();
      group.members.push_back(std::move(*snapshot));
    }
  }
  return group;
}

}  // namespace

core::Result<core::Message> DecodeMessage(const core::OutboxRow& row) {
  core::Message message;
  const json doc = json::parse(row.payload, nullptr, /*allow_exceptions=*/false);
  // The row's kind column says what the payload is; neither the key nor the payload's shape is
  // read for it (an incident key may start like a group's, an upstream payload could hold "group").
  switch (row.kind) {
    case core::OutboxRowKind::kDeadLetter:
    case core::OutboxRowKind::kDigest:
      message.kind = row.kind == core::OutboxRowKind::kDeadLetter ? core::Message::Kind::kDeadLetter
                                                                  : core::Message::Kind::kDigest;
      if (doc.is_object() && doc.size() == 1) {
        message.notice_name = doc.begin().key();
        message.notice_json = Compact(doc.begin().value());
      }
      return message;
    case core::OutboxRowKind::kGroup: {
      message.kind = core::Message::Kind::kGroup;
      core::Result<core::GroupSnapshot> group = GroupOf(doc);
      if (!group) return group.error();
      message.group = std::move(*group);
      return message;
    }
    case core::OutboxRowKind::kIncident:
      break;
  }
  core::Result<core::IncidentSnapshot> snapshot = SnapshotOf(doc);
  if (!snapshot) return snapshot.error();
  message.incident = std::move(*snapshot);
  return message;
}

namespace {

void Line(std::string& out, const char* name, const std::string& value) {
  out += name;
  out += '=';
  out += value;
  out += '\n';
}

std::string Optional(const std::optional<uint64_t>& value) {
  return value ? std::to_string(*value) : "unset";
}

std::string Pairs(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out;
  for (const auto& [name, value] : pairs) out += "[" + name + "|" + value + "]";
  return out;
}

void DescribeEvidence(std::string& out, const core::MessageEvidence& e) {
  Line(out, "ev.json", e.json);
  Line(out, "ev.is_object", std::to_string(e.is_object));
  for (const auto& [name, value] : {std::pair{"text", &e.text},
                                    {"title", &e.title},
                                    {"message", &e.message},
                                    {"culprit", &e.culprit},
                                    {"exception", &e.exception},
                                    {"level", &e.level},
                                    {"last_seen", &e.last_seen},
                                    {"count", &e.count},
                                    {"permalink", &e.permalink},
                                    {"panel_url", &e.panel_url},
                                    {"dashboard_url", &e.dashboard_url},
                                    {"generator_url", &e.generator_url},
                                    {"starts_at", &e.starts_at},
                                    {"metric", &e.metric},
                                    {"direction", &e.direction},
                                    {"value", &e.value},
                                    {"threshold", &e.threshold},
                                    {"summary", &e.summary},
                                    {"old_message", &e.old_message},
                                    {"description", &e.description},
                                    {"runbook_url", &e.runbook_url}}) {
    Line(out, name, *value);
  }
  Line(out, "ev.tags", Pairs(e.tags));
  Line(out, "ev.is_metric", std::to_string(e.is_metric));
  Line(out, "ev.recovery", e.recovery ? *e.recovery : "unset");
  Line(out, "ev.is_alert", std::to_string(e.is_alert));
}

void DescribeSnapshot(std::string& out, const core::IncidentSnapshot& s) {
  for (const auto& [name, value] : {std::pair{"key", &s.key},
                                    {"condition", &s.condition},
                                    {"status", &s.status},
                                    {"transition", &s.transition},
                                    {"opened_at", &s.opened_at},
                                    {"first_seen_at", &s.first_seen_at},
                                    {"last_seen_at", &s.last_seen_at},
                                    {"resolved_at", &s.resolved_at},
                                    {"severity", &s.severity},
                                    {"upstream_count", &s.upstream_count},
                                    {"since_last", &s.upstream_count_since_last_message},
                                    {"maintenance", &s.opened_in_maintenance},
                                    {"held_behind", &s.held_behind},
                                    {"announced_at", &s.announced_at}}) {
    Line(out, name, *value);
  }
  Line(out, "generation", Optional(s.generation));
  Line(out, "version", Optional(s.version));
  Line(out, "event_count", Optional(s.event_count));
  Line(out, "labels", std::to_string(s.has_labels) + Pairs(s.labels));
  Line(out, "flags",
       std::to_string(s.upstream_count_quoted) + std::to_string(s.since_last_message_quoted) +
           std::to_string(s.has_condition) + std::to_string(s.has_status) +
           std::to_string(s.has_transition) + std::to_string(s.has_evidence) +
           std::to_string(s.opened_in_shadow) + std::to_string(s.has_open_for));
  Line(out, "open_for", std::to_string(s.open_for_seconds));
  for (const core::MessageEvidence& e : s.evidence) DescribeEvidence(out, e);
  Line(out, "snapshot_json", SnapshotJson(s));
}

}  // namespace

std::string DescribeMessage(const core::Result<core::Message>& message) {
  std::string out;
  if (!message.ok()) {
    Line(out, "error",
         std::to_string(static_cast<int>(message.error().code)) + " " + message.error().message);
    return out;
  }
  Line(out, "kind", std::to_string(static_cast<int>(message->kind)));
  DescribeSnapshot(out, message->incident);
  const core::GroupSnapshot& g = message->group;
  Line(out, "group.key", g.key);
  Line(out, "group.channel", g.channel);
  Line(out, "group.numbers",
       Optional(g.sequence) + " " + Optional(g.episode) + " " + Optional(g.open_after));
  Line(out, "group.labels", std::to_string(g.has_labels) + Pairs(g.labels));
  std::string counts = std::to_string(g.has_counts);
  for (const auto& [name, n] : g.counts) counts += "[" + name + "|" + std::to_string(n) + "]";
  Line(out, "group.counts", counts);
  Line(out, "group.standing",
       g.standing ? std::to_string(g.standing->open) + "/" + std::to_string(g.standing->silenced)
                  : "unset");
  for (const core::IncidentSnapshot& member : g.members) DescribeSnapshot(out, member);
  Line(out, "group_json", GroupJson(g));
  Line(out, "notice", message->notice_name + " " + message->notice_json);
  Line(out, "notice_json", NoticeJson(*message));
  return out;
}

}  // namespace quell::jsonl::reference
