#pragma once

#include <cstdint>
#include <vector>

#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

// Applies, inside `tx` and before `rows` are inserted, what follow-ups may go where:
// - each resolve among `rows` cancels its generation's escalation opens still pending (a tier
//   not yet paged never is once its incident is resolved);
// - a renotify or resolve row still to send on a channel whose open of that generation was
//   never live there (only shadow, muted or cancelled rows) goes in as cancelled: a channel
//   hears the end of an incident only if it heard the start.
// Returns how many of `rows` became cancelled. The store's codes.
core::Result<uint64_t> CancelUnwantedFollowUps(core::StoreTransaction& tx,
                                               std::vector<core::OutboxRow>& rows,
                                               core::WallTime now);

}  // namespace quell::app
