#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "quell/core/engine/decision.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// An outbox row's life: pending -> in_flight (leased) -> sent, or -> dead after too many
// attempts. shadow rows are recorded but never sent; superseded rows lost to a newer transition
// of the same incident and channel that was already sent, and are never sent either.
// folded rows went past their tenant's budget: they are kept, never sent on their own, and
// listed in their hour's digest row instead. silenced rows were written while an operator's
// silence matched their key: recorded, never sent (not even after the silence ends). dropped
// rows were dead and an operator gave up on them; they are kept for the record. grouped rows
// are transitions on a channel with grouping (core/delivery/grouping.h): never sent on their
// own, they wait (group_row empty) until their group's next message takes them in one
// transaction with the group row, and are listed in it. muted rows were written while a
// recurring maintenance window covered their incident: never sent; an incident still open when
// the window ends has its open sent then (see app::PollApplier). cancelled rows were never
// wanted any more: an escalation tier's open whose incident was acked or resolved before it was
// sent, or a follow-up (renotify, resolve) for a channel that never got the open. inhibited rows
// were written while an open incident of a condition named in `inhibited_by` held their incident
// (core/conditions/inhibition.h); last_error names it ("held behind KEY"). Never sent; an
// incident still open when nothing holds it any more has its open sent then.
enum class OutboxStatus : uint8_t {
  kPending,
  kInFlight,
  kSent,
  kDead,
  kShadow,
  kSuperseded,
  kFolded,
  kSilenced,
  kDropped,
  kGrouped,
  kMuted,
  kCancelled,
  kInhibited
};

// What an outbox row is, stored in its own column (kind) and written at insert: an incident's
// transition (a grouped member and an escalation tier's row are incident rows too), a group's
// message (core/delivery/grouping.h), a tenant's hourly digest (core/delivery/tenant_budget.h)
// or a dead-letter notice (core/delivery/dead_letter.h). Readers ask the row, never its key:
// the key stays what it always was, because idempotency keys are derived from it.
enum class OutboxRowKind : uint8_t { kIncident, kGroup, kDigest, kDeadLetter };

const char* OutboxRowKindName(OutboxRowKind kind);
Result<OutboxRowKind> ParseOutboxRowKind(std::string_view name);

const char* OutboxStatusName(OutboxStatus status);
Result<OutboxStatus> ParseOutboxStatus(std::string_view name);
Result<TransitionKind> ParseTransitionName(std::string_view name);

// One notification to deliver, committed in the same transaction as the incident change that
// caused it. (key, generation, version, channel) identifies it; idempotency_key is its digest.
struct OutboxRow {
  std::string idempotency_key;
  std::string key;
  uint64_t generation = 0;
  uint64_t version = 0;
  TransitionKind transition = TransitionKind::kOpen;
  std::string channel;
  std::string payload;  // compact JSON: the incident snapshot at the transition
  OutboxStatus status = OutboxStatus::kPending;
  // Sends whose outcome was recorded (sent, failed, dead), not counting throttled answers: a
  // claim whose holder died before recording anything costs no attempt.
  uint32_t attempts = 0;
  // Filled by OutboxStore::ClaimDue only (other reads leave them empty). claims counts every
  // lease taken, this one included, so claims - attempts - throttled sends are lost leases:
  // for diagnosis. throttled_since is when the current run of throttled answers began.
  uint32_t claims = 0;
  std::optional<WallTime> throttled_since;
  WallTime next_attempt_at;
  std::string lease_owner;
  std::optional<WallTime> lease_expires_at;
  std::string last_error;
  std::string remote_message_id;
  WallTime created_at;
  WallTime updated_at;
  // Grouped rows only: the group they wait in (core::GroupKeyOf) and, once a group message
  // took them, that message's idempotency key. Read by the group queries only.
  std::string group_key;
  std::string group_row;
  // The escalation tier the row belongs to (core::TierTarget): 0 for an ordinary row; k >= 1
  // for the k-th tier of an escalation, whose open the dispatcher checks again before sending.
  uint32_t tier = 0;
  OutboxRowKind kind = OutboxRowKind::kIncident;
};

inline bool IsGroupRow(const OutboxRow& row) { return row.kind == OutboxRowKind::kGroup; }
inline bool IsDigestRow(const OutboxRow& row) { return row.kind == OutboxRowKind::kDigest; }
inline bool IsDeadLetterRow(const OutboxRow& row) { return row.kind == OutboxRowKind::kDeadLetter; }

// "q1-" + 32 hex digits (128 bits) of SHA-256 over an unambiguous encoding of the four parts.
// Deterministic across processes, machines and versions of quell: the unique constraint that
// stops a second writer from inserting a twin relies on it.
std::string OutboxIdempotencyKey(std::string_view key, uint64_t generation, uint64_t version,
                                 std::string_view channel);

}  // namespace quell::core
