#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "quell/app/dispatch_recorder.h"
#include "quell/app/poller.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

// Hears what the daemon (`quell run`) does, so the dead-man heartbeat, the metrics and the
// health checks follow it without the run loop knowing about any of them. Calls come from the
// thread that polls (cycles) or the thread that dispatches (dispatch rounds); an implementation
// must be thread-safe and must never block for long: a slow listener would delay polling.
class RunListener {
 public:
  virtual ~RunListener() = default;
  // Before the cycle's first request. `run_id` is unique per cycle (a UUID v4, lower case).
  virtual void OnCycleStart(const std::string& run_id, core::WallTime at) = 0;
  // After every condition applied or failed; `report.ok()` is false when any source failed
  // or any condition did not commit.
  virtual void OnCycleEnd(const std::string& run_id, const CycleReport& report,
                          core::WallTime at) = 0;
  // After each dispatcher round that claimed at least one row.
  virtual void OnDispatch(const DispatchReport& report, core::WallTime at) = 0;
  // After each cycle (`side` "poll") and each dispatcher round ("dispatch"): whether the store
  // took that side's writes, with the store's error when not. Also "poll" ok from the lease
  // keeper's thread after each turn whose writes went through while this instance holds no
  // poll lease: a standby has no poll writes of its own to report.
  virtual void OnStoreWrites(std::string_view side, const core::Status& status) {
    (void)side;
    (void)status;
  }

  // The poll leases (app::LeaseKeeper, on its own thread): the names this instance tries to
  // hold, at start and at each reload that changes them.
  virtual void OnLeasesWanted(const std::vector<std::string>& leases) { (void)leases; }
  // This instance holds `lease` now, with `token`; `takeover`: from a previous holder that had
  // not released it.
  virtual void OnLeaseAcquired(std::string_view lease, uint64_t token, bool takeover) {
    (void)lease;
    (void)token;
    (void)takeover;
  }
  // It lost `lease`: taken by another instance, or not renewed in time.
  virtual void OnLeaseLost(std::string_view lease, uint64_t token) {
    (void)lease;
    (void)token;
  }
  // It gave `lease` up (a stop, or a reload that no longer polls it).
  virtual void OnLeaseReleased(std::string_view lease, uint64_t token) {
    (void)lease;
    (void)token;
  }
  // A poll of `condition` under `lease` was refused at its commit: a newer holder polls.
  virtual void OnPollFenced(std::string_view condition, std::string_view lease, uint64_t token) {
    (void)condition;
    (void)lease;
    (void)token;
  }
};

}  // namespace quell::app
