#pragma once

#include <string>

#include "quell/app/dispatch_recorder.h"
#include "quell/core/time.h"

namespace quell::app {

// What `quell dispatch` and the daemon's runtime share between dispatcher rounds.

// How long to wait after `report` before the next round: zero when more is due now, else the
// idle interval or less when a retry falls due sooner. `now` is wall time: the rows' due times
// are stored, and other processes compare them too.
core::Duration DispatchWait(const DispatchReport& report, core::WallTime now, core::Duration idle);

// "dispatch: 3 claimed, 2 sent, 1 retried, 0 dead[, ...]".
std::string DispatchSummary(const DispatchReport& report);

}  // namespace quell::app
