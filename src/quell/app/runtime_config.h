#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "quell/app/dispatch_recorder.h"
#include "quell/app/poller.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

// The ports through which the daemon's runtime (DaemonRuntime) gets what a config builds: the
// runtime knows intervals, cycles and rounds, never a file, a store URL or an adapter.

// One config's poll side: its conditions grouped by interval, each group polled as one cycle.
// Used on the poll thread only.
class PollPlan {
 public:
  virtual ~PollPlan() = default;
  // The groups' intervals, one per group, distinct, positive and ascending.
  virtual std::vector<core::Duration> Intervals() const = 0;
  // Polls every condition of `group` once on the calling thread, its decisions to `sink`: with
  // `held`, only the watches whose poll lease it names, fenced by their tokens (Poller::RunOnce).
  virtual CycleReport RunCycle(size_t group, DecisionSink& sink, const HeldLeases* held) = 0;
  // The poll leases of `group`'s watches (app/poll_leases.h); none: the group is polled
  // unfenced, whatever is held.
  virtual std::vector<std::string> Leases(size_t group) const {
    (void)group;
    return {};
  }
};

// One config's dispatch side. Used on the dispatch thread only.
class DispatchPlan {
 public:
  virtual ~DispatchPlan() = default;
  // False when the config has no channel: the dispatch thread only idles.
  virtual bool enabled() const = 0;
  // One dispatcher round (Dispatcher::RunOnce); only when enabled().
  virtual DispatchReport RunOnce() = 0;
  // How long the dispatch thread waits when nothing is due (the config's dispatch.idle_interval).
  virtual core::Duration idle_interval() const = 0;
};

// Both sides built from one config, checked whole. Building one touches nothing running.
struct RuntimeConfig {
  std::string path;     // the config file, for the log
  size_t channels = 0;  // how many channels it configures, for the log
  // Valid settings that weaken something (an unsigned webhook, an unreachable Prometheus),
  // logged at every start and reload so they stay visible.
  std::vector<std::string> warnings;
  // The settings that differ from the config the process started with but that only a restart
  // applies (e.g. "http.listen"); a reload applies the rest and logs these.
  std::vector<std::string> restart_needed;
  std::unique_ptr<PollPlan> poll;
  std::unique_ptr<DispatchPlan> dispatch;                // null when this daemon does not dispatch
  core::Duration poll_lease = std::chrono::seconds(15);  // polling.lease
};

// The config-reload port: reads the config (again) and builds a RuntimeConfig from it.
class RuntimeConfigLoader {
 public:
  virtual ~RuntimeConfigLoader() = default;
  // kInvalidArgument with every problem on its own line (file:line:column where there is one)
  // when the config cannot run. Called at start and on the poll thread at each reload.
  virtual core::Result<RuntimeConfig> Load() = 0;
};

}  // namespace quell::app
