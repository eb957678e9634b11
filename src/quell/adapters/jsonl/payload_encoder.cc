#include "quell/adapters/jsonl/payload_encoder.h"

#include <chrono>

#include "quell/core/text/json_escape.h"

namespace quell::jsonl {
namespace {

void AppendTime(std::string& out, const char* name, const std::optional<core::WallTime>& t) {
  if (!t) return;
  out += ",\"";
  out += name;
  out += "\":\"";
  core::AppendRfc3339(out, *t);
  out += '"';
}

// "announced_at" and "open_for_seconds" of an open sent late, and the closing brace.
void AppendLateness(std::string& out, const core::Incident& incident, core::WallTime now) {
  AppendTime(out, "announced_at", now);
  const core::WallTime opened = incident.opened_at.value_or(now);
  const int64_t open_for = std::chrono::duration_cast<std::chrono::seconds>(now - opened).count();
  out += ",\"open_for_seconds\":";
  out += std::to_string(open_for > 0 ? open_for : 0);
  out += '}';
}

}  // namespace

void JsonPayloadEncoder::Encode(const core::Incident& incident, core::TransitionKind transition,
                                std::string& out) const {
  out.clear();
  out += "{\"key\":";
  core::AppendJsonString(out, incident.key);
  out += ",\"condition\":";
  core::AppendJsonString(out, incident.condition);
  out += ",\"generation\":";
  out += std::to_string(incident.generation);
  out += ",\"version\":";
  out += std::to_string(incident.version);
  out += ",\"transition\":\"";
  out += core::TransitionName(transition);
  out += "\",\"status\":\"";
  out += core::IncidentStatusName(incident.status);
  out += '"';
  AppendTime(out, "opened_at", incident.opened_at);
  AppendTime(out, "first_seen_at", incident.first_seen_at);
  AppendTime(out, "last_seen_at", incident.last_seen_at);
  AppendTime(out, "resolved_at", incident.resolved_at);
  out += ",\"event_count\":";
  out += std::to_string(incident.event_count);
  out += ",\"labels\":";
  core::AppendLabelsJson(out, incident.labels);
  if (incident.upstream_count) {
    out += ",\"upstream_count\":";
    out += std::to_string(*incident.upstream_count);
  }
  if (incident.upstream_count_since_previous_message) {
    out += ",\"upstream_count_since_last_message\":";
    out += std::to_string(*incident.upstream_count_since_previous_message);
  }
  out += ",\"evidence\":[";
  for (size_t i = 0; i < incident.recent_evidence.size(); ++i) {
    if (i > 0) out += ',';
    out += incident.recent_evidence[i];
  }
  out += "]}";
}

void JsonPayloadEncoder::EncodeLateOpen(const core::Incident& incident, core::WallTime now,
                                        std::string& out) const {
  Encode(incident, core::TransitionKind::kOpen, out);
  out.pop_back();  // the closing brace
  out += ",\"opened_in_shadow\":true";
  AppendLateness(out, incident, now);
}

void JsonPayloadEncoder::EncodeOpenAfterMaintenance(const core::Incident& incident,
                                                    std::string_view window, core::WallTime now,
                                                    std::string& out) const {
  Encode(incident, core::TransitionKind::kOpen, out);
  out.pop_back();  // the closing brace
  out += ",\"opened_in_maintenance\":";
  core::AppendJsonString(out, window);
  AppendLateness(out, incident, now);
}

void JsonPayloadEncoder::EncodeOpenAfterInhibition(const core::Incident& incident,
                                                   std::string_view inhibitor_key,
                                                   core::WallTime now, std::string& out) const {
  Encode(incident, core::TransitionKind::kOpen, out);
  out.pop_back();  // the closing brace
  out += ",\"held_behind\":";
  core::AppendJsonString(out, inhibitor_key);
  AppendLateness(out, incident, now);
}

}  // namespace quell::jsonl
