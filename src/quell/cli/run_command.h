#pragma once

#include <cstdio>
#include <string>

#include "quell/core/ports/clock.h"

namespace quell::cli {

struct RunCommandOptions {
  std::string config_path = "quell.yaml";
  std::string store_url;  // overrides the config's store when set
  std::string owner;      // the dispatcher's lease owner id; default host:pid:random
  bool no_dispatch = false;
};

// `quell run -c FILE`: the daemon and its HTTP surface
// (wiring::RunAssembly) on the system clock, logging through spdlog as
// the config's `log:` says, until SIGTERM or SIGINT; SIGHUP reloads the config. Returns 0
// after a clean stop, 2 when the config cannot run at start (one line on `err`).
int RunDaemonCommand(const RunCommandOptions& options, core::Clock& clock, std::FILE* err);

struct ConfigCheckOptions {
  std::string config_path = "quell.yaml";
  bool offline = false;  // send no PromQL query to Prometheus
  // The config the daemon runs now, when given: which of the changes a reload cannot apply.
  std::string running_path;
};

// `quell config check -c FILE`: every problem of the file, and every one that would stop
// `quell run` from starting with it (wiring::CheckStartup: secrets, templates, channels, the PromQL
// queries), on `out`, one "file:line:column: setting: what was expected" line each, and
// returns 2; or one summary line, a line naming the settings only a restart applies (those of
// them that differ from `running_path`'s, when given) and 0. The listen address is not tried: a
// running daemon may hold it while its next config is checked.
int RunConfigCheck(const ConfigCheckOptions& options, core::Clock& clock, std::FILE* out);

}  // namespace quell::cli
