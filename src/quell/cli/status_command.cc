#include "quell/cli/status_command.h"

#include <vector>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/text_output/cluster_status_text.h"
#include "quell/adapters/wiring/command_store.h"
#include "quell/adapters/wiring/poll_lease_map.h"
#include "quell/app/cluster_status.h"

namespace quell::cli {
namespace {

constexpr const char* kCommand = "quell status";
constexpr int kFailed = 1;
constexpr int kUsage = 2;

}  // namespace

int RunStatus(const StatusCommandOptions& options, core::WallTime now, std::FILE* out,
              std::FILE* err) {
  if (options.format != "table" && options.format != "json") {
    std::fprintf(err, "%s: --format: expected table or json, got \"%s\"\n", kCommand,
                 options.format.c_str());
    return kUsage;
  }
  std::vector<app::ExpectedLease> expected;
  core::Duration lease = config::PollingSettings{}.lease;
  if (!options.config_path.empty()) {
    // The config as `replay` reads it: a status needs no channel's secret.
    auto config = config::LoadConfigForReplay(options.config_path, config::ProcessEnv());
    if (!config) {
      std::fprintf(err, "%s: %s\n", kCommand, config.error().message.c_str());
      return kUsage;
    }
    expected = wiring::ExpectedPollLeases(*config);
    lease = config->polling.lease;
  }
  auto store = wiring::OpenCommandStore({.store_flag = options.store_url,
                                         .config_path = options.config_path,
                                         .access = wiring::StoreAccess::kExisting});
  if (!store) {
    std::fprintf(err, "%s: %s\n", kCommand, store.error().message.c_str());
    return store.error().code == core::ErrorCode::kInvalidArgument ? kUsage : kFailed;
  }
  auto status = app::ReadClusterStatus(store->store.leases(), expected, now, lease);
  if (!status) {
    std::fprintf(err, "%s: %s\n", kCommand, status.error().message.c_str());
    return kFailed;
  }
  if (options.format == "json") {
    std::fprintf(out, "%s\n", text_output::ClusterStatusJson(*status).c_str());
  } else {
    text_output::PrintClusterStatus(out, *status);
  }
  return 0;
}

}  // namespace quell::cli
