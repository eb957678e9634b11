#include "quell/cli/store_commands.h"

#include <optional>
#include <vector>

#include "quell/cli/store_url.h"

namespace quell::cli {
namespace {

std::string TimeText(const std::optional<core::WallTime>& t) {
  return t ? core::FormatRfc3339(*t) : "-";
}

// Opens the existing store the options name or prints why not; `code` receives the exit code
// on failure.
std::optional<core::Store> Open(const char* command, const StoreQueryOptions& options,
                                std::FILE* err, int& code) {
  auto url = ChooseStoreUrl(options.store_url, options.config_path);
  auto store =
      url ? OpenStore(*url, StoreAccess::kExisting) : core::Result<core::Store>(url.error());
  if (!store) {
    std::fprintf(err, "%s: %s\n", command, store.error().message.c_str());
    code = store.error().code == core::ErrorCode::kInvalidArgument ? 2 : 1;
    return std::nullopt;
  }
  return std::move(*store);
}

}  // namespace

int RunIncidentsList(const StoreQueryOptions& options, std::FILE* out, std::FILE* err) {
  int code = 0;
  auto store = Open("quell incidents list", options, err, code);
  if (!store) return code;
  auto incidents = store->incidents().ListIncidents();
  if (!incidents) {
    std::fprintf(err, "quell incidents list: %s\n", incidents.error().message.c_str());
    return 1;
  }
  if (options.format == ListFormat::kJsonl) {
    for (const core::Incident& in : *incidents) std::fprintf(out, "%s\n", IncidentJson(in).c_str());
    return 0;
  }
  std::vector<std::vector<std::string>> rows = {{"KEY", "STATUS", "GEN", "VERSION", "STREAK",
                                                 "EVENTS", "FIRST_SEEN", "LAST_SEEN",
                                                 "LAST_NOTIFIED"}};
  for (const core::Incident& in : *incidents) {
    rows.push_back({in.key, core::IncidentStatusName(in.status), std::to_string(in.generation),
                    std::to_string(in.version), std::to_string(in.healthy_streak),
                    std::to_string(in.event_count), TimeText(in.first_seen_at),
                    TimeText(in.last_seen_at), TimeText(in.last_notified_at)});
  }
  PrintTable(out, rows);
  return 0;
}

int RunIncidentsShow(const StoreQueryOptions& options, const std::string& key, std::FILE* out,
                     std::FILE* err) {
  int code = 0;
  auto store = Open("quell incidents show", options, err, code);
  if (!store) return code;
  auto found = store->incidents().FindIncident(key);
  if (!found) {
    std::fprintf(err, "quell incidents show: %s\n", found.error().message.c_str());
    return 1;
  }
  if (!*found) {
    std::fprintf(err, "quell incidents show: no incident with key \"%s\"\n", key.c_str());
    return 1;
  }
  const core::Incident& in = **found;
  if (options.format == ListFormat::kJsonl) {
    std::fprintf(out, "%s\n", IncidentJson(in).c_str());
    return 0;
  }
  std::string evidence;
  for (const std::string& e : in.recent_evidence) evidence += (evidence.empty() ? "" : " ") + e;
  PrintTable(out, {{"key", in.key},
                   {"condition", in.condition.empty() ? "-" : in.condition},
                   {"status", core::IncidentStatusName(in.status)},
                   {"generation", std::to_string(in.generation)},
                   {"version", std::to_string(in.version)},
                   {"healthy_streak", std::to_string(in.healthy_streak)},
                   {"event_count", std::to_string(in.event_count)},
                   {"renotify_count", std::to_string(in.renotify_count)},
                   {"opened_at", TimeText(in.opened_at)},
                   {"first_seen_at", TimeText(in.first_seen_at)},
                   {"last_seen_at", TimeText(in.last_seen_at)},
                   {"last_observed_at", TimeText(in.last_observed_at)},
                   {"last_notified_at", TimeText(in.last_notified_at)},
                   {"resolved_at", TimeText(in.resolved_at)},
                   {"flapping", in.flapping ? "yes" : "no"},
                   {"acked_at", TimeText(in.acked_at)},
                   {"recent_evidence", evidence.empty() ? "-" : evidence}});
  return 0;
}

int RunOutboxList(const StoreQueryOptions& options, std::optional<core::OutboxStatus> status,
                  std::FILE* out, std::FILE* err) {
  int code = 0;
  auto store = Open("quell outbox list", options, err, code);
  if (!store) return code;
  auto rows = store->incidents().ListOutbox(status);
  if (!rows) {
    std::fprintf(err, "quell outbox list: %s\n", rows.error().message.c_str());
    return 1;
  }
  if (options.format == ListFormat::kJsonl) {
    for (const core::OutboxRow& row : *rows) std::fprintf(out, "%s\n", OutboxJson(row).c_str());
    return 0;
  }
  std::vector<std::vector<std::string>> table = {{"IDEMPOTENCY_KEY", "KEY", "GEN", "VERSION",
                                                  "TRANSITION", "CHANNEL", "STATUS", "ATTEMPTS",
                                                  "CREATED"}};
  for (const core::OutboxRow& row : *rows) {
    table.push_back({row.idempotency_key, row.key, std::to_string(row.generation),
                     std::to_string(row.version), core::TransitionName(row.transition), row.channel,
                     core::OutboxStatusName(row.status), std::to_string(row.attempts),
                     core::FormatRfc3339(row.created_at)});
  }
  PrintTable(out, table);
  return 0;
}

}  // namespace quell::cli
