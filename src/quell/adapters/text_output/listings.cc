#include "quell/adapters/text_output/listings.h"

#include <string>

#include "quell/adapters/text_output/listing_json.h"

namespace quell::text_output {
namespace {

template <typename T, typename ToJson>
void PrintLines(std::FILE* out, const std::vector<T>& items, ToJson to_json) {
  for (const T& item : items) std::fprintf(out, "%s\n", to_json(item).c_str());
}

}  // namespace

void PrintIncidents(std::FILE* out, const std::vector<core::Incident>& incidents,
                    ListFormat format) {
  if (format == ListFormat::kJsonl) return PrintLines(out, incidents, IncidentJson);
  std::vector<std::vector<std::string>> rows = {{"KEY", "CONDITION", "STATUS", "ACKED", "GEN",
                                                 "VERSION", "STREAK", "EVENTS", "FIRST_SEEN",
                                                 "LAST_SEEN", "LAST_NOTIFIED"}};
  for (const core::Incident& in : incidents) {
    // Who acked, since that is whom to ask; "yes" for an ack that recorded nobody.
    const std::string acked = !in.acked_at ? "-" : in.acked_by.empty() ? "yes" : in.acked_by;
    rows.push_back({in.key, in.condition.empty() ? "-" : in.condition,
                    core::IncidentStatusName(in.status), acked, std::to_string(in.generation),
                    std::to_string(in.version), std::to_string(in.healthy_streak),
                    std::to_string(in.event_count), TimeText(in.first_seen_at),
                    TimeText(in.last_seen_at), TimeText(in.last_notified_at)});
  }
  PrintTable(out, rows);
}

void PrintIncident(std::FILE* out, const core::Incident& in, ListFormat format) {
  if (format == ListFormat::kJsonl) {
    std::fprintf(out, "%s\n", IncidentJson(in).c_str());
    return;
  }
  std::string evidence;
  for (const std::string& e : in.recent_evidence) evidence += (evidence.empty() ? "" : " ") + e;
  std::string labels;
  for (const auto& [name, value] : in.labels) {
    if (!labels.empty()) labels += ' ';
    labels.append(name).append("=").append(value);
  }
  PrintTable(out, {{"key", in.key},
                   {"condition", in.condition.empty() ? "-" : in.condition},
                   {"status", core::IncidentStatusName(in.status)},
                   {"labels", labels.empty() ? "-" : labels},
                   {"generation", std::to_string(in.generation)},
                   {"version", std::to_string(in.version)},
                   {"healthy_streak", std::to_string(in.healthy_streak)},
                   {"unhealthy_streak", std::to_string(in.unhealthy_streak)},
                   {"event_count", std::to_string(in.event_count)},
                   {"upstream_count",
                    in.upstream_count ? std::to_string(*in.upstream_count) : std::string("-")},
                   {"renotify_count", std::to_string(in.renotify_count)},
                   {"opened_at", TimeText(in.opened_at)},
                   {"first_seen_at", TimeText(in.first_seen_at)},
                   {"last_seen_at", TimeText(in.last_seen_at)},
                   {"last_observed_at", TimeText(in.last_observed_at)},
                   {"last_notified_at", TimeText(in.last_notified_at)},
                   {"resolved_at", TimeText(in.resolved_at)},
                   {"flapping", in.flapping ? "yes" : "no"},
                   {"acked_at", TimeText(in.acked_at)},
                   {"acked_by", in.acked_by.empty() ? "-" : in.acked_by},
                   {"recent_evidence", evidence.empty() ? "-" : evidence}});
}

void PrintOutbox(std::FILE* out, const std::vector<core::OutboxRow>& rows, ListFormat format) {
  if (format == ListFormat::kJsonl) return PrintLines(out, rows, OutboxJson);
  std::vector<std::vector<std::string>> table = {{"IDEMPOTENCY_KEY", "KEY", "GEN", "VERSION",
                                                  "TRANSITION", "CHANNEL", "STATUS", "ATTEMPTS",
                                                  "CREATED"}};
  for (const core::OutboxRow& row : rows) {
    table.push_back({row.idempotency_key, row.key, std::to_string(row.generation),
                     std::to_string(row.version), core::TransitionName(row.transition), row.channel,
                     core::OutboxStatusName(row.status), std::to_string(row.attempts),
                     core::FormatRfc3339(row.created_at)});
  }
  PrintTable(out, table);
}

void PrintDeadRows(std::FILE* out, const std::vector<core::OutboxRow>& rows, ListFormat format) {
  if (format == ListFormat::kJsonl) return PrintLines(out, rows, OutboxJson);
  std::vector<std::vector<std::string>> table = {{"IDEMPOTENCY_KEY", "KEY", "GEN", "VERSION",
                                                  "TRANSITION", "CHANNEL", "ATTEMPTS", "UPDATED_AT",
                                                  "LAST_ERROR"}};
  for (const core::OutboxRow& r : rows) {
    table.push_back({r.idempotency_key, r.key, std::to_string(r.generation),
                     std::to_string(r.version), core::TransitionName(r.transition), r.channel,
                     std::to_string(r.attempts), core::FormatRfc3339(r.updated_at),
                     r.last_error.empty() ? "-" : r.last_error});
  }
  PrintTable(out, table);
}

void PrintSilences(std::FILE* out, const std::vector<core::Silence>& silences, ListFormat format) {
  if (format == ListFormat::kJsonl) return PrintLines(out, silences, SilenceJson);
  std::vector<std::vector<std::string>> rows = {
      {"ID", "MATCH", "KEY_OR_PATTERN", "EXPIRES_AT", "CREATED_BY", "CREATED_AT", "REASON"}};
  for (const core::Silence& s : silences) {
    rows.push_back({std::to_string(s.id), std::string(core::SilenceMatchName(s.match)), s.pattern,
                    core::FormatRfc3339(s.expires_at), s.created_by,
                    core::FormatRfc3339(s.created_at), s.reason});
  }
  PrintTable(out, rows);
}

}  // namespace quell::text_output
