#pragma once

#include "multi_instance_harness.h"
#include "multi_instance_run.h"

namespace quell::testing {

// Reads the durable outcome of a run from its schema into `out` (incidents, decisions,
// outbox, the healthy runs before each resolve, the listings that committed nothing); the
// instances have stopped. Throws when a query fails.
void Snapshot(const PgSchema& db, Outcome& out);

}  // namespace quell::testing
