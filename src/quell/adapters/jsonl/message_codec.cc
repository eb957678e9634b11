#include "quell/adapters/jsonl/message_codec.h"

#include <algorithm>
#include <cstdio>

#include "quell/adapters/jsonl/json_tree.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/delivery/tenant_budget.h"
#include "quell/core/text/json_escape.h"

namespace quell::jsonl {
namespace {

// Each thread's parser and tree, reused row after row (their buffers stay allocated).
JsonTree& Tree() {
  thread_local JsonTree tree;
  return tree;
}

std::string StringField(JsonValue doc, std::string_view name) {
  return std::string(doc.find(name).string());
}

uint64_t NumberField(JsonValue doc, std::string_view name) {
  return doc.find(name).number_unsigned();
}

bool IsString(JsonValue doc, std::string_view name) { return doc.find(name).is_string(); }

std::optional<uint64_t> OptionalNumber(JsonValue doc, std::string_view name) {
  const JsonValue value = doc.find(name);
  if (!value.is_number_unsigned()) return std::nullopt;
  return value.number_unsigned();
}

// A string field, or a number's digits (the evidence builder writes every value as a string).
std::string TextField(JsonValue doc, std::string_view name) {
  const JsonValue value = doc.find(name);
  if (value.is_string()) return std::string(value.string());
  if (value.is_number_unsigned()) return std::to_string(value.number_unsigned());
  return {};
}

// A number as a message writes it: an integer's digits, else six significant digits.
std::string NumberWords(JsonValue value) {
  if (value.is_number_integer()) return value.Compact();
  if (!value.is_number()) return {};
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value.number_double());
  return buffer;
}

std::vector<std::pair<std::string, std::string>> StringMembers(JsonValue object) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < object.size(); ++i) {
    const JsonValue value = object.at(i);
    if (value.is_string()) out.emplace_back(object.name(i), value.string());
  }
  return out;  // a tree's objects hold their members in name order
}

core::MessageEvidence EvidenceOf(JsonValue item) {
  core::MessageEvidence e;
  e.json = item.Compact();
  if (item.is_string()) e.text = item.string();
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
  if (const JsonValue tags = item.find("tags"); tags.is_object()) e.tags = StringMembers(tags);
  if (item.contains("threshold") && item.contains("value")) {
    e.is_metric = true;
    e.metric = StringField(item, "metric");
    e.direction = StringField(item, "direction");
    e.value = NumberWords(item.find("value"));
    e.threshold = NumberWords(item.find("threshold"));
    if (const JsonValue recovery = item.find("recovery"); recovery.is_number()) {
      e.recovery = NumberWords(recovery);
    }
  }
  const JsonValue annotations = item.find("annotations");
  e.is_alert = !item.contains("title") && annotations.is_object() && IsString(item, "status");
  if (annotations.is_object()) {
    e.summary = StringField(annotations, "summary");
    e.old_message = StringField(annotations, "message");
    e.description = StringField(annotations, "description");
    e.runbook_url = StringField(annotations, "runbook_url");
  }
  return e;
}

core::Result<core::IncidentSnapshot> SnapshotOf(JsonValue doc) {
  if (!IsString(doc, "key")) {
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
  if (const JsonValue labels = doc.find("labels"); labels.is_object()) {
    s.has_labels = true;
    s.labels = StringMembers(labels);
  }
  s.upstream_count = TextField(doc, "upstream_count");
  s.upstream_count_since_last_message = TextField(doc, "upstream_count_since_last_message");
  s.upstream_count_quoted = IsString(doc, "upstream_count");
  s.since_last_message_quoted = IsString(doc, "upstream_count_since_last_message");
  s.has_condition = IsString(doc, "condition");
  s.has_status = IsString(doc, "status");
  s.has_transition = IsString(doc, "transition");
  if (const JsonValue evidence = doc.find("evidence"); evidence.is_array()) {
    s.has_evidence = true;
    s.evidence.reserve(evidence.size());
    for (size_t i = 0; i < evidence.size(); ++i) s.evidence.push_back(EvidenceOf(evidence.at(i)));
  }
  if (const JsonValue shadow = doc.find("opened_in_shadow"); shadow.is_boolean()) {
    s.opened_in_shadow = shadow.boolean();
  }
  s.opened_in_maintenance = StringField(doc, "opened_in_maintenance");
  s.held_behind = StringField(doc, "held_behind");
  s.announced_at = StringField(doc, "announced_at");
  if (const JsonValue open_for = doc.find("open_for_seconds"); open_for.is_number_unsigned()) {
    s.has_open_for = true;
    s.open_for_seconds = open_for.number_unsigned();
  }
  return s;
}

core::Result<core::GroupSnapshot> GroupOf(JsonValue doc) {
  const JsonValue g = doc.find("group");
  if (!g.is_object()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "the outbox payload is not a group message (no \"group\" object)");
  }
  core::GroupSnapshot group;
  group.key = StringField(g, "key");
  group.channel = StringField(g, "channel");
  group.sequence = OptionalNumber(g, "sequence");
  group.episode = OptionalNumber(g, "episode");
  group.open_after = OptionalNumber(g, "open_after");
  if (const JsonValue labels = g.find("labels"); labels.is_object()) {
    group.has_labels = true;
    group.labels = StringMembers(labels);
  }
  if (const JsonValue counts = g.find("counts"); counts.is_object()) {
    group.has_counts = true;
    for (size_t i = 0; i < counts.size(); ++i) {
      group.counts.emplace_back(counts.name(i), counts.at(i).number_unsigned());
    }
  }
  if (const JsonValue standing = g.find("standing"); standing.is_object()) {
    group.standing = core::GroupSnapshot::Standing{NumberField(standing, "open"),
                                                   NumberField(standing, "silenced")};
  }
  if (const JsonValue members = g.find("members"); members.is_array()) {
    group.members.reserve(members.size());
    for (size_t i = 0; i < members.size(); ++i) {
      core::Result<core::IncidentSnapshot> snapshot = SnapshotOf(members.at(i));
      if (!snapshot) return snapshot.error();
      group.members.push_back(std::move(*snapshot));
    }
  }
  return group;
}

// The tree of `payload`; its root is absent (no object, so every reader refuses it) when the
// payload is no JSON.
JsonValue Parsed(std::string_view payload) {
  JsonTree& tree = Tree();
  tree.Parse(payload);
  return tree.root();
}

void AddString(std::vector<JsonMember>& members, const char* name, const std::string& value) {
  if (!value.empty()) members.push_back({name, JsonText(value)});
}

void AddNumber(std::vector<JsonMember>& members, const char* name, uint64_t value) {
  members.push_back({name, std::to_string(value)});
}

// A count as it was stored: a number (as the payload encoder writes it) or, quoted, text.
void AddCount(std::vector<JsonMember>& members, const char* name, const std::string& value,
              bool quoted) {
  if (quoted || !value.empty()) members.push_back({name, quoted ? JsonText(value) : value});
}

void AddPresent(std::vector<JsonMember>& members, const char* name, const std::string& value,
                bool present) {
  if (present) members.push_back({name, JsonText(value)});
}

std::string LabelsJson(const std::vector<std::pair<std::string, std::string>>& labels) {
  std::vector<JsonMember> members;
  members.reserve(labels.size());
  for (const auto& [name, value] : labels) members.push_back({name, JsonText(value)});
  return SortedObject(std::move(members));
}

void Merge(std::vector<JsonMember>& members, std::vector<JsonMember>& extra) {
  for (JsonMember& m : extra) members.push_back(std::move(m));
}

}  // namespace

std::string JsonText(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  core::AppendJsonString(out, text, core::LineSeparators::kVerbatim);
  return out;
}

std::string SortedObject(std::vector<JsonMember> members) {
  // Stable, so that of two members with one name the later wins below.
  std::stable_sort(members.begin(), members.end(),
                   [](const JsonMember& a, const JsonMember& b) { return a.name < b.name; });
  std::string out = "{";
  for (size_t i = 0; i < members.size(); ++i) {
    if (i + 1 < members.size() && members[i + 1].name == members[i].name) continue;
    if (out.size() > 1) out += ',';
    out += JsonText(members[i].name);
    out += ':';
    out += members[i].value;
  }
  out += '}';
  return out;
}

std::string SnapshotJson(const core::IncidentSnapshot& s, std::vector<JsonMember> extra) {
  std::vector<JsonMember> m;
  m.reserve(24 + extra.size());
  m.push_back({"key", JsonText(s.key)});
  AddPresent(m, "condition", s.condition, s.has_condition);
  if (s.generation) AddNumber(m, "generation", *s.generation);
  if (s.version) AddNumber(m, "version", *s.version);
  AddPresent(m, "transition", s.transition, s.has_transition);
  AddPresent(m, "status", s.status, s.has_status);
  AddString(m, "opened_at", s.opened_at);
  AddString(m, "first_seen_at", s.first_seen_at);
  AddString(m, "last_seen_at", s.last_seen_at);
  AddString(m, "resolved_at", s.resolved_at);
  if (s.event_count) AddNumber(m, "event_count", *s.event_count);
  AddString(m, "severity", s.severity);
  if (s.has_labels) m.push_back({"labels", LabelsJson(s.labels)});
  AddCount(m, "upstream_count", s.upstream_count, s.upstream_count_quoted);
  AddCount(m, "upstream_count_since_last_message", s.upstream_count_since_last_message,
           s.since_last_message_quoted);
  if (s.has_evidence) {
    std::string evidence = "[";
    for (size_t i = 0; i < s.evidence.size(); ++i) {
      if (i > 0) evidence += ',';
      evidence += s.evidence[i].json;
    }
    evidence += ']';
    m.push_back({"evidence", std::move(evidence)});
  }
  if (s.opened_in_shadow) m.push_back({"opened_in_shadow", "true"});
  AddString(m, "opened_in_maintenance", s.opened_in_maintenance);
  AddString(m, "held_behind", s.held_behind);
  AddString(m, "announced_at", s.announced_at);
  if (s.has_open_for) AddNumber(m, "open_for_seconds", s.open_for_seconds);
  Merge(m, extra);
  return SortedObject(std::move(m));
}

std::string GroupJson(const core::GroupSnapshot& g, std::vector<JsonMember> extra) {
  std::vector<JsonMember> m;
  AddString(m, "key", g.key);
  AddString(m, "channel", g.channel);
  if (g.sequence) AddNumber(m, "sequence", *g.sequence);
  if (g.episode) AddNumber(m, "episode", *g.episode);
  if (g.open_after) AddNumber(m, "open_after", *g.open_after);
  if (g.has_labels) m.push_back({"labels", LabelsJson(g.labels)});
  if (g.has_counts) {
    std::vector<JsonMember> counts;
    for (const auto& [name, n] : g.counts) counts.push_back({name, std::to_string(n)});
    m.push_back({"counts", SortedObject(std::move(counts))});
  }
  if (g.standing) {
    m.push_back({"standing", SortedObject({{"open", std::to_string(g.standing->open)},
                                           {"silenced", std::to_string(g.standing->silenced)}})});
  }
  Merge(m, extra);
  return SortedObject(std::move(m));
}

std::string NoticeJson(const core::Message& message, std::vector<JsonMember> extra) {
  std::vector<JsonMember> m;
  if (!message.notice_name.empty()) m.push_back({message.notice_name, message.notice_json});
  Merge(m, extra);
  return SortedObject(std::move(m));
}

core::Result<core::IncidentSnapshot> DecodeSnapshot(std::string_view payload) {
  return SnapshotOf(Parsed(payload));
}

core::Result<core::GroupSnapshot> DecodeGroup(std::string_view payload) {
  return GroupOf(Parsed(payload));
}

core::Result<core::Message> DecodeMessage(const core::OutboxRow& row) {
  core::Message message;
  const JsonValue doc = Parsed(row.payload);
  // The row's kind column says what the payload is; neither the key nor the payload's shape is
  // read for it (an incident key may start like a group's, an upstream payload could hold "group").
  switch (row.kind) {
    case core::OutboxRowKind::kDeadLetter:
    case core::OutboxRowKind::kDigest:
      message.kind = row.kind == core::OutboxRowKind::kDeadLetter ? core::Message::Kind::kDeadLetter
                                                                  : core::Message::Kind::kDigest;
      if (doc.is_object() && doc.size() == 1) {
        message.notice_name = doc.name(0);
        message.notice_json = doc.at(0).Compact();
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

}  // namespace quell::jsonl
