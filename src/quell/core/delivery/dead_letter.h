#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "quell/core/delivery/tenant_budget.h"
#include "quell/core/ports/channel.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/text/time.h"

namespace quell::core {

// Dead-letter notices: when outbox rows die, the dead-letter channel gets one notice per
// interval listing them, not one message per row dressed as an incident. The notice is an
// outbox row itself, inserted in the transaction that records the first death of its window
// (so a crash can neither lose it nor make two), due at the window's end, and sent like any
// other row. Windows are fixed and aligned to the epoch, so every dispatcher derives the same
// row, and the same idempotency key, for a death at the same time.
inline constexpr std::string_view kDeadLetterKey = "{dead_letter}";
bool IsDeadLetterKey(std::string_view key);

// The window of length `interval` (at least a second; shorter counts as one) containing `at`.
BudgetWindow DeadLetterWindowAt(WallTime at, Duration interval);

// The notice of (channel, window): key kDeadLetterKey, generation = the window's start in
// seconds since the epoch, version = its length in seconds, due at its end; the idempotency key
// follows from those and the channel.
OutboxRow MakeDeadLetterRow(std::string_view channel, BudgetWindow window, WallTime now);

// The window a notice (from MakeDeadLetterRow) reports.
BudgetWindow DeadLetterWindowOf(const OutboxRow& notice);

// The notice's message: how many rows died in the window and the first `max_listed` of them
// (key, channel, transition, attempts, last error), then "... and N more"; severity "critical".
RenderedMessage DeadLetterMessage(const OutboxRow& notice, std::span<const OutboxRow> dead,
                                  size_t max_listed = 20);

// The notice's payload for channels that send structured bodies: {"dead_letter":{channel,
// window_start, window_end, count, rows:[{idempotency_key, key, channel, transition,
// generation, version, attempts, last_error, died_at}], more}} with at most `max_listed` rows.
std::string DeadLetterPayload(const OutboxRow& notice, std::span<const OutboxRow> dead,
                              size_t max_listed = 100);

// What an outbox row carries: an incident's transition, a tenant's digest, or a dead-letter
// notice. Channels say so ("kind") so that a receiver never takes a notice for an incident.
enum class MessageKind : uint8_t { kIncident, kDigest, kDeadLetter };
MessageKind MessageKindOf(const OutboxRow& row);
const char* MessageKindName(MessageKind kind);

}  // namespace quell::core
