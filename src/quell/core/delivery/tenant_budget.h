#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "quell/core/ports/channel.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/text/time.h"

namespace quell::core {

// A per-tenant notification budget: at most `per_hour` outbox rows per tenant and channel in
// each fixed UTC hour; rows past it are folded (kept, never sent on their own) and one digest
// row per (tenant, channel, hour) carries them at the end of the hour. Fixed windows rather
// than a sliding one, so that "which digest does this row belong to" has one answer that two
// workers compute alike.
struct BudgetWindow {
  WallTime start;
  WallTime end;
};

// The tenant of an incident key: the key up to its first ':' (the default key templates start
// with the tenant), or the whole key when it has none.
std::string_view TenantOf(std::string_view key);

// The UTC hour containing `at`.
BudgetWindow HourWindow(WallTime at);

// Digest rows have keys "{digest}:<tenant>". A rendered key template never holds a brace (its
// literals cannot, and braces in values are replaced), so no condition's key can collide.
inline constexpr std::string_view kDigestKeyPrefix = "{digest}:";
bool IsDigestKey(std::string_view key);

// A row that reports a window rather than one transition (a digest, a dead-letter notice):
// pending, due at the window's end, keyed by (key, generation, version, channel), with the
// payload {"<kind>":{"<subject_name>":"<subject>","window_start":"...","window_end":"..."}}
// (<kind>: OutboxRowKindName).
OutboxRow MakeWindowRow(std::string key, uint64_t generation, uint64_t version,
                        std::string_view channel, OutboxRowKind kind, std::string_view subject_name,
                        std::string_view subject, BudgetWindow window, WallTime now);

// The digest row of (tenant, channel, window): generation = the window's hour number since the
// epoch, version 1, due at the window's end, a payload naming tenant and window. Built the same
// by every writer, so inserting it again is a no-op (same idempotency key).
OutboxRow MakeDigestRow(std::string_view tenant, std::string_view channel, BudgetWindow window,
                        WallTime now);

// The tenant and window a digest row (from MakeDigestRow) reports.
std::string_view DigestTenant(const OutboxRow& digest);
BudgetWindow DigestWindow(const OutboxRow& digest);

// The digest's message: how many notifications of the tenant were folded in the window and the
// first `max_listed` of them (key and transition), severity "warning".
RenderedMessage DigestMessage(const OutboxRow& digest, std::span<const OutboxRow> folded,
                              size_t max_listed = 20);

// The digest's payload with the folded rows listed, for channels that send structured bodies
// (the webhook): {"digest":{tenant, window_start, window_end, count, folded:[{key,
// transition, generation, version, created_at}]}}.
std::string DigestPayload(const OutboxRow& digest, std::span<const OutboxRow> folded);

}  // namespace quell::core
