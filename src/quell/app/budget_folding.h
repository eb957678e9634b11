#pragma once

#include <cstdint>
#include <vector>

#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

// Applies the per-tenant budget to a poll's new outbox rows inside its transaction: each
// pending row counts against its tenant's window on its channel (core/tenant_budget.h); a row
// past `per_hour` becomes folded and the window's digest row is appended (once per tenant,
// channel and window; the store skips a digest row it already holds). Shadow rows never count.
// Returns the number of rows folded.
core::Result<uint64_t> FoldOverBudget(core::StoreTransaction& tx,
                                      std::vector<core::OutboxRow>& rows, uint32_t per_hour,
                                      core::WallTime now);

}  // namespace quell::app
