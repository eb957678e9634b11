#pragma once

#include <functional>
#include <string>

#include "quell/app/dispatch_recorder.h"
#include "quell/app/run_control.h"
#include "quell/core/ports/clock.h"
#include "quell/core/text/time.h"

namespace quell::app {

// What `quell dispatch` and the daemon's runtime share between dispatcher rounds.

// How long to wait after `report` before the next round: zero when more is due now, else the
// idle interval or less when a retry falls due sooner. `now` is wall time: the rows' due times
// are stored, and other processes compare them too.
core::Duration DispatchWait(const DispatchReport& report, core::WallTime now, core::Duration idle);

// "dispatch: 3 claimed, 2 sent, 1 retried, 0 dead[, ...]".
std::string DispatchSummary(const DispatchReport& report);

// `quell dispatch`'s loop: `round` (Dispatcher::RunOnce) until a stop is requested, or with
// `once` until nothing more is due now; between rounds it waits as DispatchWait and StoreOutage
// say. Each line worth telling goes to `say`: every error (a store outage only when it starts
// and when it ends), and with `summary` true the summary of each round that claimed or
// trimmed. Returns true when any round had an error or a dead row.
bool RunDispatchRounds(const std::function<DispatchReport()>& round, core::Duration idle,
                       core::Clock& clock, RunControl& control, bool once,
                       const std::function<void(const std::string& line, bool summary)>& say);

}  // namespace quell::app
