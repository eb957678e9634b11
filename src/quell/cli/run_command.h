#pragma once

#include <cstdio>
#include <string>

namespace quell::cli {

struct RunCommandOptions {
  std::string config_path = "quell.yaml";
  std::string store_url;  // overrides the config's store when set
  std::string owner;      // the dispatcher's lease owner id; default host:pid:random
  bool no_dispatch = false;
};

// `quell run -c FILE`: the daemon (see Daemon) on the system clock, logging through spdlog as
// the config's `log:` says, until SIGTERM or SIGINT; SIGHUP reloads the config. Returns 0
// after a clean stop, 2 when the config cannot run at start (one line on `err`).
int RunDaemonCommand(const RunCommandOptions& options, std::FILE* err);

// `quell config check -c FILE`: every problem of the file on `out`, one "file:line:column:
// setting: what was expected" line each, and returns 2; or one summary line and 0.
int RunConfigCheck(const std::string& config_path, std::FILE* out);

}  // namespace quell::cli
