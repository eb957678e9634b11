#pragma once

#include <string>
#include <string_view>

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
  // took that side's writes, with the store's error when not.
  virtual void OnStoreWrites(std::string_view side, const core::Status& status) {
    (void)side;
    (void)status;
  }
};

}  // namespace quell::app
