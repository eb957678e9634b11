#include "quell/adapters/text_output/listing_json.h"

#include "quell/core/text/json_escape.h"

namespace quell::text_output {
namespace {

void Field(std::string& out, const char* name) {
  if (out.size() > 1) out += ',';
  out += '"';
  out += name;
  out += "\":";
}
void Str(std::string& out, const char* name, const std::string& v) {
  Field(out, name);
  core::AppendJsonString(out, v);
}
void Num(std::string& out, const char* name, uint64_t v) {
  Field(out, name);
  out += std::to_string(v);
}
void OptionalNum(std::string& out, const char* name, const std::optional<uint64_t>& v) {
  Field(out, name);
  out += v ? std::to_string(*v) : "null";
}
void Time(std::string& out, const char* name, const std::optional<core::WallTime>& t) {
  Field(out, name);
  if (!t) {
    out += "null";
    return;
  }
  out += '"';
  core::AppendRfc3339(out, *t);
  out += '"';
}

}  // namespace

namespace {

// The incident's fields, without the closing brace.
std::string IncidentFields(const core::Incident& in) {
  std::string out = "{";
  Str(out, "key", in.key);
  Str(out, "condition", in.condition);
  Num(out, "generation", in.generation);
  Str(out, "status", core::IncidentStatusName(in.status));
  Num(out, "version", in.version);
  Field(out, "labels");
  core::AppendLabelsJson(out, in.labels);
  Num(out, "healthy_streak", in.healthy_streak);
  Num(out, "unhealthy_streak", in.unhealthy_streak);
  Num(out, "event_count", in.event_count);
  Num(out, "renotify_count", in.renotify_count);
  OptionalNum(out, "upstream_count", in.upstream_count);
  OptionalNum(out, "upstream_count_since_last_message", in.upstream_count_since_previous_message);
  Time(out, "opened_at", in.opened_at);
  Time(out, "first_seen_at", in.first_seen_at);
  Time(out, "last_seen_at", in.last_seen_at);
  Time(out, "last_observed_at", in.last_observed_at);
  Time(out, "last_notified_at", in.last_notified_at);
  Time(out, "resolved_at", in.resolved_at);
  Field(out, "flapping");
  out += in.flapping ? "true" : "false";
  Time(out, "acked_at", in.acked_at);
  Str(out, "acked_by", in.acked_by);
  Field(out, "held");
  out += in.held ? "true" : "false";
  Time(out, "held_until", in.held_until);
  Field(out, "recent_evidence");
  out += '[';
  for (size_t i = 0; i < in.recent_evidence.size(); ++i) {
    if (i > 0) out += ',';
    out += in.recent_evidence[i];
  }
  out += ']';
  return out;
}

}  // namespace

std::string IncidentJson(const core::Incident& incident) { return IncidentFields(incident) + '}'; }

std::string ListedIncidentJson(const core::Incident& incident, const std::string& severity,
                               uint64_t notifications_sent) {
  std::string out = IncidentFields(incident);
  Str(out, "severity", severity);
  Num(out, "notifications_sent", notifications_sent);
  out += '}';
  return out;
}

std::string SilenceJson(const core::Silence& silence) {
  std::string out = "{";
  Num(out, "id", silence.id);
  // The text under the name the API takes it by, so a listed silence posts back as it was.
  Str(out, "match", std::string(core::SilenceMatchName(silence.match)));
  Str(out, silence.match == core::SilenceMatch::kExact ? "key" : "pattern", silence.pattern);
  Time(out, "expires_at", silence.expires_at);
  Str(out, "reason", silence.reason);
  Str(out, "created_by", silence.created_by);
  Time(out, "created_at", silence.created_at);
  out += '}';
  return out;
}

std::string OutboxJson(const core::OutboxRow& row) {
  std::string out = "{";
  Str(out, "idempotency_key", row.idempotency_key);
  Str(out, "key", row.key);
  Num(out, "generation", row.generation);
  Num(out, "version", row.version);
  Str(out, "transition", core::TransitionName(row.transition));
  Str(out, "channel", row.channel);
  Num(out, "tier", row.tier);
  Str(out, "status", core::OutboxStatusName(row.status));
  Num(out, "attempts", row.attempts);
  Time(out, "next_attempt_at", row.next_attempt_at);
  Str(out, "lease_owner", row.lease_owner);
  Time(out, "lease_expires_at", row.lease_expires_at);
  Str(out, "last_error", row.last_error);
  Str(out, "remote_message_id", row.remote_message_id);
  Time(out, "created_at", row.created_at);
  Time(out, "updated_at", row.updated_at);
  Field(out, "payload");
  out += row.payload.empty() ? "null" : row.payload;
  out += '}';
  return out;
}

}  // namespace quell::text_output
