#include "quell/adapters/wiring/run_assembly.h"

#include <utility>

#include "quell/adapters/system/lease_owner.h"
#include "quell/adapters/wiring/daemon_assembly.h"
#include "quell/adapters/wiring/poll_lease_map.h"
#include "quell/adapters/wiring/source_catalog_of.h"

namespace quell::wiring {

core::Result<std::unique_ptr<RunAssembly>> RunAssembly::Create(const config::Config& config,
                                                               const RunOptions& options,
                                                               core::Clock& clock,
                                                               core::EventLog& log,
                                                               app::RunControl& control) {
  std::unique_ptr<RunAssembly> run(new RunAssembly());
  // This instance's id: its dispatcher's lease owner, its poll leases' holder, its name in status.
  const std::string owner = options.owner.empty() ? system::DefaultLeaseOwner() : options.owner;
  RunAssembly* holders = run.get();
  DaemonOptions daemon_options{
      .config_path = options.config_path,
      .store_url = options.store_url,
      .owner = owner,
      .dispatch = options.dispatch,
      .seed = options.seed,
      .jitter = 0.1,
      .version = options.version,
      .on_load =
          [holders, &clock](const config::Config& loaded) {
            holders->maintenance_.Set(loaded.maintenance);
            holders->poll_groups_.Set(ExpectedPollLeases(loaded));
            holders->sources_.Set(SourceCatalogOf(loaded));
            holders->push_settings_.Set(PushSettingsOf(loaded));
            holders->surface_settings_.Set(SurfaceSettingsOf(loaded, clock));
          },
  };
  // Every problem of the config, each on its own line, before anything binds or runs.
  auto daemon = MakeDaemon(std::move(daemon_options), clock, log, control, {});
  if (!daemon) return daemon.error();
  run->daemon_ = std::move(*daemon);
  // Metrics, heartbeat and the HTTP surface follow the daemon as listeners; a reload changes
  // what the surface reads from surface_settings_, not its listener, token or heartbeat
  // (RestartOnlySettings).
  auto ops =
      OpsSurface::Create(config, options.store_url.empty() ? config.store_url : options.store_url,
                         clock, log, run->maintenance_, run->surface_settings_);
  if (!ops) return ops.error();
  run->ops_ = std::move(*ops);
  run->daemon_->AddListeners(run->ops_->listeners());
  app::DaemonRuntime* runtime = run->daemon_.get();
  run->ops_->SetRole([runtime] { return runtime->Role(); });
  run->ops_->SetStatusSources(owner, &run->poll_groups_);
  run->ops_->SetSourceCatalog(&run->sources_);
  run->ops_->SetPushInputs(&run->push_settings_);
  return run;
}

}  // namespace quell::wiring
