#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "quell/core/ports/lease_store.h"

// The poll-lease rules both stores apply to the row they hold locked (core/ports/lease_store.h
// states them), so SQLite and PostgreSQL cannot drift apart on who holds what.
namespace quell::store {

// What an Acquire of `name` by `holder` at `now` makes of the lease row `current` (nullopt: no
// row yet). When the claim is held, claim.lease is the row to write; otherwise it is `current`
// unchanged and nothing is written.
core::LeaseClaim NextLease(const std::optional<core::Lease>& current, std::string_view name,
                           std::string_view holder, core::WallTime now, core::Duration ttl);

// The kConflict message of a refused FencePoll: `exists` says whether the lease row is there.
std::string FencedMessage(std::string_view lease, uint64_t token, bool exists);

}  // namespace quell::store
