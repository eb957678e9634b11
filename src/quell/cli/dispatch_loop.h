#pragma once

#include <string>

#include "quell/app/dispatch_recorder.h"
#include "quell/core/text/time.h"

namespace quell::cli {

// What `quell dispatch` and `quell run` share between dispatcher rounds.

// A lease owner id unique to this process: "host:pid:random".
std::string DefaultLeaseOwner();

// How long to wait after `report` before the next round: zero when more is due now, else the
// idle interval or less when a retry falls due sooner.
core::Duration DispatchWait(const app::DispatchReport& report, core::WallTime now,
                            core::Duration idle);

// "dispatch: 3 claimed, 2 sent, 1 retried, 0 dead[, ...]".
std::string DispatchSummary(const app::DispatchReport& report);

}  // namespace quell::cli
