#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/conditions/key_group.h"
#include "quell/core/engine/decision.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/observation.h"
#include "quell/core/engine/silence.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// An incident to write back. expected_version is the version read in this transaction, 0 when
// the key had no row: the write is a compare-and-set on it.
struct IncidentWrite {
  Incident incident;
  uint64_t expected_version = 0;
};

// One line of the decision log. Only decisions that changed an incident are logged; the rest
// are counted in the poll's PollRecord. (key, version) is unique, so a replay adds nothing.
struct DecisionRecord {
  std::string key;
  uint64_t generation = 0;
  uint64_t version = 0;
  WallTime at;
  DecisionKind kind = DecisionKind::kUnknown;
  Reason reason = Reason::kNone;
};

// An observation the decision log leaves out, kept for an incident's timeline: a failed or
// partial poll's unknown, or a stale observation, of a key whose incident is open, pending or
// held. One per (key, poll id).
struct ObservationMark {
  std::string key;
  std::string poll_id;
  WallTime at;              // the observation's
  uint64_t generation = 0;  // the incident's
  Health health = Health::kUnknown;
  DecisionKind decision = DecisionKind::kUnknown;  // kUnknown or kStale
};

// Per-poll counts, one row per poll id.
struct PollRecord {
  std::string poll_id;
  WallTime applied_at;
  uint64_t observations = 0;
  uint64_t changed = 0;
  uint64_t outbox_rows = 0;
  std::array<uint64_t, 7> by_decision{};  // indexed by DecisionKind
};

// An incident generation (key, generation) and a channel that carried its rows.
struct GenerationChannel {
  std::string key;
  uint64_t generation = 0;
  std::string channel;
};

// A channel on which an incident generation's transitions were stored inhibited, and the
// inhibitor the latest of those rows names (its last_error, "held behind KEY").
struct HeldChannel {
  std::string key;
  uint64_t generation = 0;
  std::string channel;
  std::string held_behind;
};

// How the error of a fenced poll (StoreTransaction::FencePoll) begins, wherever it is passed on.
inline constexpr std::string_view kFencedPrefix = "fenced: ";

// One unit of work against the store, open until Commit; destroying it uncommitted rolls back.
// Not thread-safe; one per thread. Every method may fail with kUnavailable (store unreachable,
// locked too long), kTimeout or kInternal; after any failure only destruction is valid, except
// after kConflict from a method run inside a savepoint, which RollbackToSavepoint recovers.
class StoreTransaction {
 public:
  virtual ~StoreTransaction() = default;

  // Appends the stored incidents among `keys` (sorted, unique) to `out` in key order, and
  // holds them against other writers until the transaction ends.
  virtual Status LoadIncidents(std::span<const std::string> keys, std::vector<Incident>& out) = 0;
  // The (key, version) of the stored incidents among `keys` (sorted, unique), appended in key
  // order and held as LoadIncidents holds them: for a caller that read the incidents before
  // the transaction (IncidentStore::FindIncidents) and reads again only those whose version
  // moved (every write moves it: PutIncidents compares it). By default LoadIncidents.
  virtual Status LoadVersions(std::span<const std::string> keys,
                              std::vector<std::pair<std::string, uint64_t>>& out) {
    std::vector<Incident> loaded;
    if (auto status = LoadIncidents(keys, loaded); !status) return status;
    for (Incident& incident : loaded) out.emplace_back(std::move(incident.key), incident.version);
    return {};
  }

  // Marks a point that RollbackToSavepoint returns to; a new Savepoint replaces the old one.
  virtual Status Savepoint() = 0;
  virtual Status RollbackToSavepoint() = 0;

  // Writes each incident if its stored version still equals expected_version (no row for 0).
  // kConflict when any lost that race: another writer changed or created the key first.
  virtual Status PutIncidents(std::span<const IncidentWrite> writes) = 0;

  // Appends to the decision log; a (key, version) already logged is left as it is.
  virtual Status AppendDecisions(std::string_view poll_id,
                                 std::span<const DecisionRecord> decisions) = 0;

  // Appends observation marks; a (key, poll id) already marked is left as it is, so a replayed
  // poll adds nothing.
  virtual Status AddObservationMarks(std::span<const ObservationMark> marks) = 0;

  // Inserts outbox rows; a row whose idempotency key exists already is skipped, never doubled.
  // A row older than a sent row of the same incident and channel is stored as superseded.
  virtual Status InsertOutbox(std::span<const OutboxRow> rows) = 0;

  // Cancels the escalation opens (tier >= 1) still pending, or waiting in their group (grouped,
  // no group message took them yet), of the generations (key, generation) given, and the
  // follow-ups waiting in a tier's group beside such an open, stamped `now`; returns how many
  // rows. Run in an ack's or a resolve's transaction, so a tier not yet paged is never paged
  // after it.
  virtual Result<uint64_t> CancelTierOpens(
      std::span<const std::pair<std::string, uint64_t>> generations, WallTime now) = 0;

  // Of the incident generations (key, generation) given, the channels on which every outbox
  // row of that generation is a shadow, muted, cancelled or inhibited row, or a silenced
  // renotify or resolve (so its open was never sent live there; a silenced open counts as
  // sent), in (key, channel) order. Read when a condition leaves shadow mode, a
  // maintenance window closes or an inhibitor lets go, to announce those opens late.
  virtual Result<std::vector<GenerationChannel>> NeverLiveChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) = 0;

  // Of the incident generations (key, generation) given, the channels on which a row of that
  // generation was sent or is still to be (pending, in flight, grouped, sent, folded), in
  // (key, channel) order: where its open was heard. Read for a silenced resolve on a grouped
  // channel, which joins its group only where the open did.
  virtual Result<std::vector<GenerationChannel>> HeardChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) = 0;

  // Of the incident generations given, the channels that have an inhibited row, with the
  // inhibitor the latest such row names, in (key, channel) order. Read to find the opens an
  // inhibition held back.
  virtual Result<std::vector<HeldChannel>> InhibitedChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) = 0;

  // The open incidents of `conditions` (sorted, unique), in key order, read through the index
  // of open incidents and not held against writers: the inhibitors, read once per poll
  // transaction so every row of the poll is judged against the same set.
  virtual Result<std::vector<Incident>> LoadOpenIncidentsOf(
      std::span<const std::string> conditions) = 0;

  // Records the poll's counts; false (and no change) when the poll id was recorded before.
  virtual Result<bool> RecordPoll(const PollRecord& poll) = 0;

  // Deletes decision log lines observed before `cutoff`, and the observation marks and delivery
  // attempts (OutboxStore::RecordOutcomes) from before it with them: the rest of a timeline.
  // Returns how many decision lines.
  virtual Result<uint64_t> PruneDecisions(WallTime cutoff) = 0;

  // Deletes the (key, group id) pairs last seen failing before `cutoff`; returns how many. A
  // scan (the table has no index on last_seen_at, to keep every poll's upsert cheap), so
  // callers prune rarely.
  virtual Result<uint64_t> PruneKeyGroups(WallTime cutoff) = 0;

  // Sets source mark `name` to `value` (insert or overwrite), stamped `now`. It commits or rolls
  // back with this transaction, so a mark never gets ahead of the poll that justified it.
  virtual Status PutSourceMark(std::string_view name, std::string_view value, WallTime now) = 0;

  // Upserts each (key, group id) pair as seen failing at `now`: first_seen_at on insert,
  // last_seen_at = now and polls + 1 otherwise. `seen` is sorted and unique.
  virtual Status RecordKeyGroups(std::span<const KeyGroup> seen, WallTime now) = 0;
  // Inserts each pair not recorded yet as RecordKeyGroups would (first and last seen `now`,
  // polls 1) and leaves a recorded pair as it is: the pairs of a quiet sighting, whose key's
  // incident is not written either, so a group newly failing under it is still recorded at
  // the cost of a lookup. `seen` is sorted and unique.
  virtual Status RecordNewKeyGroups(std::span<const KeyGroup> seen, WallTime now) = 0;

  // Counts one notification of `tenant` on `channel` in the budget window starting at
  // `window_start` and says whether it is within `per_hour` (true) or must be folded into the
  // window's digest (false). Atomic across writers: each call takes the next number.
  virtual Result<bool> AdmitToBudget(std::string_view tenant, std::string_view channel,
                                     WallTime window_start, uint32_t per_hour) = 0;

  // The silences active at `now` (expires_at > now), read once per poll transaction so every
  // outbox row of the poll is judged against the same set.
  virtual Result<std::vector<Silence>> LoadActiveSilences(WallTime now) = 0;

  // The fence of a poll taken under a lease (core/ports/lease_store.h): ok when `lease` still
  // has `token`, and then its polled_at becomes `at`, in this transaction; kConflict with a
  // message starting with kFencedPrefix when another holder has taken the lease since (the
  // caller must roll back, and not retry: it is no race). The lease row
  // stays locked until the transaction ends, so a takeover waits for this commit or this commit
  // sees the takeover. A store without leases refuses every fenced poll.
  virtual Status FencePoll(std::string_view lease, uint64_t token, WallTime at) {
    (void)lease;
    (void)token;
    (void)at;
    return MakeError(ErrorCode::kInternal, "this store keeps no poll leases");
  }

  // Remembers a provider's callback event (`provider`, `id`) until `expires_at`, after deleting
  // every remembered event expired at `now`. true when it was not remembered yet; false when it
  // was: a duplicate delivery, after which the caller changes nothing. The row stays locked
  // until the transaction ends, so of two deliveries at once one waits and then sees the other.
  virtual Result<bool> RememberCallbackEvent(std::string_view provider, std::string_view id,
                                             WallTime now, WallTime expires_at) {
    (void)provider;
    (void)id;
    (void)now;
    (void)expires_at;
    return MakeError(ErrorCode::kInternal, "this store remembers no callback events");
  }

  virtual Status Commit() = 0;
};

// The durable incidents, decision log, outbox and source marks. Implementations are safe to use
// from several processes at once; one instance is used by one thread at a time. Every read may
// fail with kUnavailable, kTimeout or kInternal, as transactions do.
class IncidentStore {
 public:
  virtual ~IncidentStore() = default;

  // Starts a write transaction. kUnavailable when the store is locked or unreachable.
  virtual Result<std::unique_ptr<StoreTransaction>> Begin() = 0;

  // All incidents in key order.
  virtual Result<std::vector<Incident>> ListIncidents() = 0;
  // std::nullopt when the key has no incident.
  virtual Result<std::optional<Incident>> FindIncident(std::string_view key) = 0;
  // The open incidents of `condition`, and its resolved ones still under a manual resolve's
  // hold (a poll must observe those to end the hold), in key order (byte order, as
  // ListIncidents), read through the indexes of open and of held incidents. A snapshot outside
  // any transaction: a poll applied afterwards re-reads each incident under its lock.
  // kCorrupt when a row does not decode.
  virtual Result<std::vector<Incident>> ListOpenIncidents(std::string_view condition) = 0;
  // The keys of the same incidents a slice at a time: at most `limit` of those that sort after
  // `after` ("" for the first slice), in key order, so a poll's sweep over a million open
  // incidents holds one slice of keys and decodes no incident (the stores read the indexes
  // only). By default ListOpenIncidents, cut.
  virtual Result<std::vector<std::string>> ListWatchedKeysAfter(std::string_view condition,
                                                                std::string_view after,
                                                                size_t limit) {
    auto all = ListOpenIncidents(condition);
    if (!all) return all.error();
    std::vector<std::string> out;
    for (Incident& incident : *all) {
      if (incident.key <= after) continue;
      if (out.size() >= limit) break;
      out.push_back(std::move(incident.key));
    }
    return out;
  }
  // FindIncident for many keys (sorted, unique) in a few statements, not one per key: the
  // incidents of those that have one, in key order, appended to `out`. A snapshot outside any
  // transaction, as FindIncident; a poll re-checks each under its lock before it writes. By
  // default FindIncident per key.
  virtual Status FindIncidents(std::span<const std::string> keys, std::vector<Incident>& out) {
    for (const std::string& key : keys) {
      auto found = FindIncident(key);
      if (!found) return found.error();
      if (*found) out.push_back(std::move(**found));
    }
    return {};
  }
  // Outbox rows ordered by (key, channel, generation, version), only `status` when given.
  virtual Result<std::vector<OutboxRow>> ListOutbox(std::optional<OutboxStatus> status) = 0;

  // Records a delivery and supersedes every pending or failed-but-retrying row of the same
  // incident and channel that is older (by generation, version). kNotFound for an unknown key.
  virtual Status MarkSent(std::string_view idempotency_key, std::string_view remote_message_id,
                          WallTime now) = 0;

  // The value last committed by StoreTransaction::PutSourceMark for `name`; std::nullopt when
  // none was. A source keeps what its next poll must remember here, e.g. a listing watermark.
  virtual Result<std::optional<std::string>> GetSourceMark(std::string_view name) = 0;

  // Decision log lines and polls recorded; for tests and operators.
  virtual Result<uint64_t> CountDecisions() = 0;
  virtual Result<uint64_t> CountPolls() = 0;

  // Open incidents, over every condition; cheap enough for every metrics refresh.
  virtual Result<uint64_t> CountOpenIncidents() = 0;
  // Outbox rows per status, keyed by OutboxStatusName; a status with no rows is absent.
  virtual Result<std::map<std::string, uint64_t>> CountOutboxByStatus() = 0;
};

}  // namespace quell::core
