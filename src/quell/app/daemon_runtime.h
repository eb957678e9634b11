#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "quell/app/dispatcher.h"
#include "quell/app/handover.h"
#include "quell/app/health.h"
#include "quell/app/lease_keeper.h"
#include "quell/app/run_control.h"
#include "quell/app/run_listener.h"
#include "quell/app/runtime_config.h"
#include "quell/app/scheduler.h"
#include "quell/app/store_health.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"
#include "quell/core/ports/lease_store.h"
#include "quell/core/ports/store.h"
#include "quell/core/result.h"

namespace quell::app {

struct RuntimeOptions {
  std::string config_path;  // for the log only: the loader reads the file
  uint64_t seed = 0;        // poll jitter and run ids; seed it from an entropy source
  double jitter = 0.1;      // see SchedulerOptions
  // The poll leases' store (its own connection, used by the lease keeper's thread only) and
  // this instance as the others see it. Null: no leases, every group polls (one instance).
  core::LeaseStore* leases = nullptr;
  std::shared_ptr<core::Store> lease_connection = {};  // owns `leases` when set
  InstanceIdentity instance = {};
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
  uint64_t reloads = 0;         // configs applied by a reload request
  uint64_t failed_reloads = 0;  // configs refused (the old one kept)
};

// The daemon (`quell run`): one process that polls, decides, persists and dispatches, over
// ports. Conditions are grouped by interval (PollPlan), each group on its own jittered cadence
// (Scheduler, in monotonic time); a slow group delays the others on this one poll thread but
// never overlaps itself. The dispatcher runs on its own thread (DispatchPlan). Stop and reload
// requests (RunControl: the signals, delivered as events) are looked at only between cycles and
// between dispatcher rounds: the cycle in hand commits, the batch in hand finishes. A reload
// asks the loader for the config again; a valid one replaces the old before the next cycle
// (and the next dispatcher round), an invalid one is logged and the old one keeps running.
//
// A reload is all or nothing: the loader builds both sides whole before anything switches;
// then the dispatcher takes its new side at its next round boundary while the poll thread
// waits, and only then does the poller switch, so no row is written for a channel the running
// dispatcher lacks. Every wait and cadence is measured on the clock's Monotonic() reading, so a
// step of the wall clock moves none; wall time is only reported (cycle ends, log lines).
class DaemonRuntime {
 public:
  // Loads the first config; its error (kInvalidArgument, every problem located) when it cannot
  // run. `clock`, `log`, `control` and the listeners must outlive the runtime.
  static core::Result<std::unique_ptr<DaemonRuntime>> Create(
      std::unique_ptr<RuntimeConfigLoader> loader, core::Clock& clock, core::EventLog& log,
      RunControl& control, RuntimeOptions options, std::vector<RunListener*> listeners);
  ~DaemonRuntime();
  DaemonRuntime(const DaemonRuntime&) = delete;
  DaemonRuntime& operator=(const DaemonRuntime&) = delete;

  // Polls on the calling thread and dispatches on another until a stop is requested; returns
  // the exit code: 0.
  int Run();

  DaemonHealth Health() const;
  // Polling or standing by, for /healthz; nullopt without a lease store. Thread-safe.
  std::optional<PollRole> Role() const;
  // Adds listeners (the HTTP surface's, built after the runtime so that a config problem is
  // reported whole before anything binds). Before Run only.
  void AddListeners(const std::vector<RunListener*>& listeners) {
    listeners_.insert(listeners_.end(), listeners.begin(), listeners.end());
  }

  // The steps Run takes, for a test to drive one by one without Run:
  // Loads the config again and switches to it whole, or keeps everything as it runs and says
  // why. Called on the poll thread by Run on a reload request.
  core::Status Reload();
  // Runs every condition group due now (Monotonic()), on the calling thread.
  void PollDue();
  // How long until the next group is due (zero or less: one is due now).
  core::Duration UntilNextDue();
  // One dispatcher round, after taking a reload's new dispatch side. An empty report when no
  // channel is configured.
  DispatchReport DispatchRound();
  // How long the dispatch thread waits after `report` before its next round.
  core::Duration DispatchWaitAfter(const DispatchReport& report);
  // One lease keeper turn (renew, take, record the instance); returns when the next is due.
  // Without a lease store: nothing, and a time far ahead.
  core::MonoTime KeepLeases();
  // Gives the leases up, as Run does after its poll thread stopped.
  void ReleaseLeases();

 private:
  // The poll thread's share of one config.
  struct PollSide {
    std::unique_ptr<PollPlan> plan;
    std::unique_ptr<Scheduler> scheduler;
    size_t channels = 0;
    LeaseSet leases;
  };
  struct Generation {
    PollSide poll;
    std::unique_ptr<DispatchPlan> dispatch;
    std::vector<std::string> restart_needed;
  };

  DaemonRuntime(std::unique_ptr<RuntimeConfigLoader> loader, core::Clock& clock,
                core::EventLog& log, RunControl& control, RuntimeOptions options,
                std::vector<RunListener*> listeners);
  core::Result<Generation> Prepare();
  void RunGroup(size_t group);
  void DispatchLoop();
  void LeaseLoop();
  // Logs and reports the polls refused at their commit.
  void ReportFenced(const std::string& run_id, const CycleReport& report);

  std::unique_ptr<RuntimeConfigLoader> loader_;
  core::Clock& clock_;
  core::EventLog& log_;
  RunControl& control_;
  RuntimeOptions options_;
  std::vector<RunListener*> listeners_;
  uint64_t run_id_state_;
  PollSide poll_;
  std::unique_ptr<DispatchPlan> dispatch_;  // the dispatch thread's while Run runs
  Handover<DispatchPlan> next_dispatch_;    // a reload's new dispatch side, for that thread
  std::atomic<bool> dispatch_thread_ = false;
  StoreOutage dispatch_outage_;          // the dispatch thread's
  std::unique_ptr<LeaseKeeper> keeper_;  // null without a lease store

  mutable std::mutex mu_;
  DaemonHealth health_;  // guarded by mu_
};

}  // namespace quell::app
