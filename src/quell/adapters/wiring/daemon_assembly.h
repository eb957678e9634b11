#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "quell/adapters/config/config.h"
#include "quell/app/daemon_runtime.h"
#include "quell/app/run_control.h"
#include "quell/app/run_listener.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"
#include "quell/core/result.h"

namespace quell::wiring {

struct DaemonOptions {
  std::string config_path = "quell.yaml";
  std::string store_url;  // overrides the config's store when set
  std::string owner;      // the dispatcher's lease owner id; default host:pid:random
  bool dispatch = true;   // false: poll only (a separate `quell dispatch` delivers)
  uint64_t seed = 0;      // poll jitter and run ids; seed it from an entropy source
  double jitter = 0.1;    // see app::SchedulerOptions
  std::string version;    // what this instance's row in the store names (GET /v1/status)
  // Called with each config the daemon will run, at start and at each reload it accepts, on
  // the thread that loads it (what the HTTP surface shows of it, e.g. the maintenance windows).
  std::function<void(const config::Config&)> on_load;
};

// One poll group of a config: the interval its conditions share and the config with only them.
struct PollGroupConfig {
  core::Duration interval{};
  config::Config config;
};

// The config split by condition interval, shortest first: the daemon runs one PollWiring per
// group (each its own scheduler group, with its own cadence and leases).
std::vector<PollGroupConfig> PollGroupsOf(const config::Config& config);

// `quell run`'s runtime (app::DaemonRuntime) over the config file: each load reads the file,
// checks it whole (CheckStartup: the same checks at start and at a reload) and builds the
// adapters of both sides, one store connection per side (PollGroupsOf on the poll side, a
// DispatchWiring on the other), plus the lease keeper's connection opened once at start.
// kInvalidArgument with every problem on its own line (file:line:column) when it cannot run.
// `clock`, `log`, `control` and the listeners must outlive the daemon.
core::Result<std::unique_ptr<app::DaemonRuntime>> MakeDaemon(
    DaemonOptions options, core::Clock& clock, core::EventLog& log, app::RunControl& control,
    std::vector<app::RunListener*> listeners);

}  // namespace quell::wiring
