#pragma once

#include <span>
#include <string>
#include <vector>

#include "quell/core/engine/silence.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/ports/outbox_store.h"
#include "quell/core/text/time.h"

namespace quell::core {

// The members of one group message in the order every store lists them: commit time, then key
// byte by byte (not a database's collation), then generation and version, so SQLite and
// PostgreSQL, and a message sent twice, list the same members alike.
void SortWaitingMembers(std::vector<OutboxRow>& members);

// Where a group's members stand at `at`: `open_keys` are the keys its messages named whose
// incident is open in the store (each once); a key an active silence among `silences` covers
// at `at` counts as silenced, the rest as open.
GroupStanding StandingOf(std::span<const std::string> open_keys, std::span<const Silence> silences,
                         WallTime at);

}  // namespace quell::core
