#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/ports/group_facts.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// What became of one leased row.
struct OutboxOutcome {
  // kDefer: back to pending at next_attempt_at without counting the attempt (a pacing rule
  // such as SMS quiet hours held it, it did not fail).
  enum class Kind : uint8_t { kSent, kReschedule, kDead, kDefer };
  Kind kind = Kind::kSent;
  std::string idempotency_key;
  std::string remote_message_id;  // kSent
  std::string error;              // kReschedule, kDead, kDefer
  WallTime next_attempt_at;       // kReschedule, kDefer
  // kReschedule, kDead: the provider throttled the send (SendOutcome::throttled). It is not
  // counted as an attempt, and the row's throttled_since is set if unset; any other outcome
  // clears throttled_since.
  bool throttled = false;
  // kDead: the dead-letter notice of the window this death falls in, inserted in the same
  // transaction when the outcome applies, unless a row with its idempotency key exists.
  std::optional<OutboxRow> notice;
};

// A group with members waiting on a channel (core/delivery/grouping.h).
struct WaitingGroup {
  std::string channel;
  std::string group_key;
  // When the earliest waiting member became ready: its commit time, or for an escalation tier's
  // open (due later than its commit) the time it falls due.
  WallTime first_waiting;
  std::optional<WallTime> last_message_at;  // when the group's previous message was built
};

// Where a group's members stand in the store at one moment (OutboxStore::GroupStandingAt): of
// the keys its messages named, those whose incident is open, split by whether an operator's
// silence covers them then. A group message says this, not what was true when it was built.
struct GroupStanding {
  uint64_t open = 0;      // open and not silenced
  uint64_t silenced = 0;  // open, under an active silence
};

// The dispatcher's side of the outbox. Every method is one short transaction; implementations
// are safe to use from several processes at once (one instance per thread).
class OutboxStore {
 public:
  virtual ~OutboxStore() = default;

  // Leases up to `limit` due rows to `owner` until now + lease and returns them in (key,
  // channel, generation, version) order, with claims counted and attempts not: the attempt
  // is counted when its outcome is recorded, so a lease lost with its holder costs none. Due:
  // pending with next_attempt_at <= now, or in_flight with an expired lease (its dispatcher died;
  // the row is resent with the same idempotency key). A row is never claimed while an older row of
  // the same key and channel is still pending or in flight, so sends keep their order; shadow,
  // sent, dead and superseded rows never are. Two owners never hold one row.
  virtual Result<std::vector<OutboxRow>> ClaimDue(std::string_view owner, WallTime now,
                                                  Duration lease, size_t limit) = 0;

  // Checks the escalation rows (tier >= 1) among `claimed` again, in one transaction, just
  // before they are sent, and cancels (status cancelled, lease cleared) those `owner` still
  // holds that are no longer wanted: an open whose incident is no longer open in that
  // generation or was acked, a renotify or resolve whose channel never had that generation's
  // open sent. Returns the idempotency keys cancelled; the rest are to be sent.
  virtual Result<std::vector<std::string>> CancelUnwantedTierRows(
      std::string_view owner, std::span<const OutboxRow> claimed, WallTime now) = 0;

  // Records what became of leased rows, all in one transaction (one commit for a whole batch
  // of sends): kSent as IncidentStore::MarkSent (remote id kept, older siblings superseded),
  // kReschedule back to pending at next_attempt_at keeping the error, kDead with the error
  // (updated_at = now, the time it died) and its notice row, if any.
  // Each outcome applies only while `owner` still holds the row's lease; the result has one
  // status per outcome, in order: kConflict for a lease that expired and went to another
  // owner (it resends with the same key, which is why every channel carries it). The outer
  // Result fails only when the transaction itself does.
  virtual Result<std::vector<Status>> RecordOutcomes(std::string_view owner,
                                                     std::span<const OutboxOutcome> outcomes,
                                                     WallTime now) = 0;

  // Rows on `channel` sent at or after `since`, their sent times ascending; for the channel's
  // rate rules (an SMS recipient's minimum interval and daily cap).
  virtual Result<std::vector<WallTime>> SentTimes(std::string_view channel, WallTime since) = 0;

  // The folded rows of `tenant` (keys "<tenant>:...") on `channel` created in [start, end), in
  // creation order: what a tenant's digest row for that window reports.
  virtual Result<std::vector<OutboxRow>> FoldedRows(std::string_view channel,
                                                    std::string_view tenant, WallTime start,
                                                    WallTime end) = 0;

  // The dead rows that died (updated_at) in [start, end), by (updated_at, key, channel): what a
  // dead-letter notice for that window reports. A row retried or dropped since is not listed.
  virtual Result<std::vector<OutboxRow>> DeadRows(WallTime start, WallTime end) = 0;

  // Deletes at most `limit` finished rows (sent, dead, dropped, shadow, superseded, folded,
  // silenced, and grouped rows whose group row is gone) last updated before `cutoff`, in one short
  // transaction, and returns how many. Pending and in-flight rows are never deleted, nor the rows
  // of an open incident's current generation (follow-ups thread on its first sent row). Call again
  // while it returns `limit`.
  virtual Result<uint64_t> TrimOutbox(WallTime cutoff, size_t limit) = 0;

  // The groups that have waiting members (grouped rows no group message took yet), by
  // (channel, group key).
  virtual Result<std::vector<WaitingGroup>> WaitingGroups() = 0;

  // In one transaction: reads the facts of (channel, group_key) at `now` (GroupFacts: the
  // members ready then, an escalation tier's open at its tier's time; the latest member of each
  // key its earlier messages took; its kept state) and asks `plan`, which decides (the core's
  // PlanGroupMessage). When it answers with a message, inserts its row, marks exactly the ready
  // members read as that row's, keeps its state_after, and commits. nullopt when nothing was
  // ready, `plan` answered none, or another writer built that message first (its idempotency
  // key exists): nothing changes. The facts stay true until the commit (SQLite: BEGIN
  // IMMEDIATE; PostgreSQL: the ready members and the group's state FOR UPDATE), so two writers
  // never both take a member or both send a message; a planner that only read facts and a
  // second call that wrote would lose that, which is why the plan runs inside.
  virtual Result<std::optional<OutboxRow>> AssembleGroup(std::string_view channel,
                                                         std::string_view group_key, WallTime now,
                                                         const GroupPlanner& plan) = 0;

  // The members of the group row whose idempotency key is `group_row`, in commit order
  // (core::SortWaitingMembers: created_at, key byte-wise, generation, version).
  virtual Result<std::vector<OutboxRow>> GroupMembers(std::string_view group_row) = 0;

  // Where the members of (channel, group_key) stand at `at` (core::StandingOf): the keys any
  // built message of the group named, with their incidents as stored now and the silences
  // active at `at`. Read just before the group's message is sent, so its counts are the
  // store's at that time.
  virtual Result<GroupStanding> GroupStandingAt(std::string_view channel,
                                                std::string_view group_key, WallTime at) = 0;

  // The remote id of the earliest sent row of (key, generation, channel), for threading
  // follow-ups; empty when none was sent.
  virtual Result<std::string> ThreadRemoteId(std::string_view key, uint64_t generation,
                                             std::string_view channel) = 0;
};

}  // namespace quell::core
