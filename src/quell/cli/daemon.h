#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "quell/adapters/config/config.h"
#include "quell/app/dispatcher.h"
#include "quell/app/handover.h"
#include "quell/app/run_control.h"
#include "quell/app/run_listener.h"
#include "quell/app/scheduler.h"
#include "quell/app/store_health.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"
#include "quell/core/ports/store.h"
#include "quell/core/result.h"

namespace quell::wiring {
class PollWiring;
class DispatchWiring;
}  // namespace quell::wiring

namespace quell::cli {

struct DaemonOptions {
  std::string config_path = "quell.yaml";
  std::string store_url;  // overrides the config's store when set
  std::string owner;      // the dispatcher's lease owner id; default host:pid:random
  bool dispatch = true;   // false: poll only (a separate `quell dispatch` delivers)
  uint64_t seed = 0;      // poll jitter and run ids; seed it from an entropy source
  double jitter = 0.1;    // see app::SchedulerOptions
};

// What the health checks need, read from any thread.
struct DaemonHealth {
  // The end of the last cycle in which every source answered and every condition committed.
  std::optional<core::WallTime> last_complete_cycle;
  // The end of the last cycle of any outcome.
  std::optional<core::WallTime> last_cycle_end;
  // The smallest condition interval of the config running now.
  core::Duration smallest_interval{};
  uint64_t cycles = 0;
  uint64_t reloads = 0;         // configs applied by SIGHUP
  uint64_t failed_reloads = 0;  // configs refused (the old one kept)
};

// `quell run`: one process that polls, decides, persists and dispatches. Conditions are
// grouped by interval, one Poller per group, each group on its own jittered cadence
// (app::Scheduler); a slow group delays the others on this one poll thread but never overlaps
// itself. The dispatcher runs the `quell dispatch` loop on its own thread with its own store
// connection. Stop and reload requests (RunControl) are looked at only between cycles and
// between dispatcher rounds: the cycle in hand commits, the batch in hand finishes (bounded by
// the channels' timeouts; a row it could not record is left to its lease). A reload reads the
// config again; a valid one replaces the old before the next cycle (and the next dispatcher
// round), an invalid one is logged (file:line:column) and the old one keeps running.
//
// A reload is all or nothing: the new config is read, checked whole (wiring::CheckStartup: the same
// checks as at start) and both sides are built before anything switches; then the dispatcher
// takes its new side at its next round boundary while the poll thread waits, and only then does
// the poller switch, so no row is written for a channel the running dispatcher lacks.
class Daemon {
 public:
  // Reads and wires the config; kInvalidArgument with file:line:column when it cannot run.
  // `clock`, `log`, `control` and the listeners must outlive the daemon.
  static core::Result<std::unique_ptr<Daemon>> Create(DaemonOptions options, core::Clock& clock,
                                                      core::EventLog& log, app::RunControl& control,
                                                      std::vector<app::RunListener*> listeners);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Polls on the calling thread and dispatches on another until a stop is requested; returns
  // the exit code: 0.
  int Run();

  DaemonHealth Health() const;
  // Adds listeners (the HTTP surface's, built after the daemon so that a config problem is
  // reported whole before anything binds). Before Run only.
  void AddListeners(const std::vector<app::RunListener*>& listeners) {
    listeners_.insert(listeners_.end(), listeners.begin(), listeners.end());
  }

  // Reads the config again and switches to it whole, or keeps everything as it runs and says
  // why (kInvalidArgument, every problem on its own line, located). Called on the poll thread
  // by Run on SIGHUP; a test without Run may call it with PollDue and DispatchRound.
  core::Status Reload();
  // Runs every condition group due now, on the calling thread (Run's poll step).
  void PollDue();
  // One dispatcher round, after taking a reload's new dispatch side (Run's dispatch step; the
  // dispatch thread's alone while Run runs). An empty report when no channel is configured.
  app::DispatchReport DispatchRound();

 private:
  // Everything built from one config for the poll thread.
  struct PollSide {
    std::shared_ptr<const config::Config> config;
    std::optional<core::Store> store;
    std::vector<std::unique_ptr<wiring::PollWiring>> groups;  // one per scheduler group
    std::unique_ptr<app::Scheduler> scheduler;
    ~PollSide();
  };
  // And for the dispatch thread.
  struct DispatchSide {
    std::shared_ptr<const config::Config> config;
    std::optional<core::Store> store;
    std::unique_ptr<wiring::DispatchWiring> wiring;  // null when no channel is configured
    ~DispatchSide();
  };

  Daemon(DaemonOptions options, core::Clock& clock, core::EventLog& log, app::RunControl& control,
         std::vector<app::RunListener*> listeners);

  // Both sides built from the config file, checked whole; nothing running is touched.
  struct Generation {
    std::unique_ptr<PollSide> poll;
    std::unique_ptr<DispatchSide> dispatch;  // null when this daemon does not dispatch
  };
  core::Result<Generation> Prepare();
  core::Result<std::unique_ptr<PollSide>> BuildPollSide(
      std::shared_ptr<const config::Config> config);
  core::Result<std::unique_ptr<DispatchSide>> BuildDispatchSide(
      std::shared_ptr<const config::Config> config);
  std::string StoreUrl(const config::Config& config) const;

  void RunGroup(size_t group);
  void DispatchLoop();

  DaemonOptions options_;
  core::Clock& clock_;
  core::EventLog& log_;
  app::RunControl& control_;
  std::vector<app::RunListener*> listeners_;
  uint64_t run_id_state_;
  std::unique_ptr<PollSide> poll_;
  std::unique_ptr<DispatchSide> dispatch_;     // the dispatch thread's while Run runs
  app::Handover<DispatchSide> next_dispatch_;  // a reload's new dispatch side, for that thread
  std::atomic<bool> dispatch_thread_ = false;
  app::StoreOutage dispatch_outage_;  // the dispatch thread's

  mutable std::mutex mu_;
  DaemonHealth health_;  // guarded by mu_
};

}  // namespace quell::cli
