#include "quell/cli/store_commands.h"

#include <optional>

#include "quell/adapters/text_output/listings.h"
#include "quell/adapters/wiring/store_url.h"

namespace quell::cli {
namespace {

// Opens the existing store the options name or prints why not; `code` receives the exit code
// on failure.
std::optional<core::Store> Open(const char* command, const StoreQueryOptions& options,
                                std::FILE* err, int& code) {
  auto url = wiring::ChooseStoreUrl(options.store_url, options.config_path);
  auto store = url ? wiring::OpenStore(*url, wiring::StoreAccess::kExisting)
                   : core::Result<core::Store>(url.error());
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
  text_output::PrintIncidents(out, *incidents, options.format);
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
