#include "quell/adapters/jsonl/payload_encoder.h"

#include "quell/adapters/jsonl/json_text.h"

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

}  // namespace

void JsonPayloadEncoder::Encode(const core::Incident& incident, core::TransitionKind transition,
                                std::string& out) const {
  out.clear();
  out += "{\"key\":";
  AppendJsonString(out, incident.key);
  out += ",\"condition\":";
  AppendJsonString(out, incident.condition);
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
  out += ",\"evidence\":[";
  for (size_t i = 0; i < incident.recent_evidence.size(); ++i) {
    if (i > 0) out += ',';
    out += incident.recent_evidence[i];
  }
  out += "]}";
}

}  // namespace quell::jsonl
