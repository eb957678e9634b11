#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quell/adapters/config/config.h"
#include "quell/adapters/http_server/maintenance_routes.h"
#include "quell/adapters/wiring/ops_surface.h"
#include "quell/adapters/wiring/surface_settings.h"
#include "quell/app/cluster_status.h"
#include "quell/app/daemon_runtime.h"
#include "quell/app/latest.h"
#include "quell/app/push_input.h"
#include "quell/app/run_control.h"
#include "quell/app/source_catalog.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"
#include "quell/core/result.h"

namespace quell::wiring {

struct RunOptions {
  std::string config_path = "quell.yaml";
  std::string store_url;  // overrides the config's store when set
  std::string owner;      // this instance's id; default host:pid:random
  bool dispatch = true;   // false: poll only
  uint64_t seed = 0;      // poll jitter and run ids; seed it from an entropy source
  std::string version;    // what GET /v1/status and the store's instances name
};

// `quell run` put together: the daemon (MakeDaemon) and its HTTP surface (OpsSurface), joined
// by what every config the daemon accepts, at start and at each reload, hands the surface
// (maintenance windows, expected poll leases, sources, push settings, surface settings). The
// surface hears the daemon as its listeners and asks it for its poll role.
class RunAssembly {
 public:
  // `config` is the file as read at start: the surface's listener, token and heartbeat keep it
  // (RestartOnlySettings). kInvalidArgument with every problem of the config on its own line
  // when the daemon cannot run; else the surface's one-line error. `clock`, `log` and
  // `control` must outlive the assembly.
  static core::Result<std::unique_ptr<RunAssembly>> Create(const config::Config& config,
                                                           const RunOptions& options,
                                                           core::Clock& clock, core::EventLog& log,
                                                           app::RunControl& control);
  RunAssembly(const RunAssembly&) = delete;
  RunAssembly& operator=(const RunAssembly&) = delete;
  ~RunAssembly() = default;

  // Binds http.listen and serves; returns the bound port.
  core::Result<int> Serve() { return ops_->Serve(); }
  // The daemon until `control` stops it; its exit code.
  int Run() { return daemon_->Run(); }

 private:
  RunAssembly() = default;

  // Set by each accepted load, read by the surface: declared before both, so they outlive them.
  http_server::MaintenanceListing maintenance_;
  app::Latest<std::vector<app::ExpectedLease>> poll_groups_;
  app::Latest<app::SourceCatalog> sources_;
  app::Latest<app::PushSettings> push_settings_;
  app::Latest<SurfaceSettings> surface_settings_;
  std::unique_ptr<app::DaemonRuntime> daemon_;
  std::unique_ptr<OpsSurface> ops_;  // stopped first, while the daemon still runs
};

}  // namespace quell::wiring
