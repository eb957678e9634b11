#include "quell/cli/store_commands.h"

#include <optional>
#include <utility>
#include <vector>

#include "quell/adapters/text_output/listings.h"
#include "quell/adapters/wiring/command_store.h"
#include "quell/app/operator_queries.h"

namespace quell::cli {
namespace {

// Opens the existing store the options name or prints why not; `code` receives the exit code
// on failure.
std::optional<core::Store> Open(const char* command, const StoreQueryOptions& options,
                                std::FILE* err, int& code) {
  auto store = wiring::OpenCommandStore({.store_flag = options.store_url,
                                         .config_path = options.config_path,
                                         .access = wiring::StoreAccess::kExisting});
  if (!store) {
    std::fprintf(err, "%s: %s\n", command, store.error().message.c_str());
    code = store.error().code == core::ErrorCode::kInvalidArgument ? 2 : 1;
    return std::nullopt;
  }
  return std::move(store->store);
}

}  // namespace

int RunIncidentsList(const StoreQueryOptions& options, const IncidentListFlags& flags,
                     std::FILE* out, std::FILE* err) {
  // The API's own reading of its query, so a filter means one thing in both.
  app::QueryParams query;
  for (const auto& [name, value] :
       {std::pair{"status", &flags.status}, std::pair{"condition", &flags.condition},
        std::pair{"label", &flags.label}, std::pair{"limit", &flags.limit}}) {
    if (!value->empty()) query.emplace(name, *value);
  }
  auto filter = app::IncidentFilterFrom(query);
  if (!filter) {  // "status: want ...": the flag of that name
    std::fprintf(err, "quell incidents list: --%s\n", filter.error().message.c_str());
    return 2;
  }
  int code = 0;
  auto store = Open("quell incidents list", options, err, code);
  if (!store) return code;
  app::OperatorQueries queries(store->incidents(), store->operators());
  auto listed = queries.ListIncidents(*filter);
  if (!listed) {
    std::fprintf(err, "quell incidents list: %s\n", listed.error().message.c_str());
    return 1;
  }
  std::vector<core::Incident> incidents;
  incidents.reserve(listed->incidents.size());
  for (app::IncidentListItem& item : listed->incidents) {
    incidents.push_back(std::move(item.incident));
  }
  text_output::PrintIncidents(out, incidents, options.format);
  if (listed->total > incidents.size()) {
    std::fprintf(err, "quell incidents list: %zu of %llu matching incidents (--limit)\n",
                 incidents.size(), static_cast<unsigned long long>(listed->total));
  }
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
  text_output::PrintIncident(out, **found, options.format);
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
  text_output::PrintOutbox(out, *rows, options.format);
  return 0;
}

}  // namespace quell::cli
