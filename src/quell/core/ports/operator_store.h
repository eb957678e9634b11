#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/engine/silence.h"
#include "quell/core/ports/incident_page.h"
#include "quell/core/ports/one_off_window.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// A channel that carried rows of one incident generation, and whether every one of them was a
// shadow row (so a manual resolve stays in shadow too).
struct ChannelUse {
  std::string channel;
  bool shadow_only = false;
};

// One generation of an incident, by key.
struct IncidentGeneration {
  std::string key;
  uint64_t generation = 0;
};

// One line of an incident's decision log, as stored.
struct LoggedDecision {
  uint64_t generation = 0;
  uint64_t version = 0;
  std::string poll_id;
  WallTime at;
  std::string decision;  // DecisionName: notify, update_only, resolve, ...
  std::string reason;    // ReasonName; empty when the decision had none
};

// An observation mark (StoreTransaction::AddObservationMarks), as stored.
struct LoggedMark {
  std::string poll_id;
  WallTime at;
  uint64_t generation = 0;
  std::string health;    // HealthName
  std::string decision;  // DecisionName: unknown or stale
};

// One recorded send outcome of an outbox row (OutboxStore::RecordOutcomes).
struct LoggedAttempt {
  std::string idempotency_key;
  uint64_t attempt = 0;  // a sequence per idempotency key: the row's claims at the outcome
  std::string channel;
  uint64_t generation = 0;
  std::string transition;  // the outbox row's; empty once the row was trimmed
  WallTime at;
  std::string outcome;  // sent, failed, throttled, dead or deferred
  std::string detail;   // the remote message id when sent, else the error
};

// When a generation of a key opened (its first notify) and resolved, by its decision log;
// nullopt where the log has no such line (not yet, or pruned).
struct GenerationSpan {
  uint64_t generation = 0;
  std::optional<WallTime> opened_at;
  std::optional<WallTime> resolved_at;
  // Who acked it and when (an ack link's name, a Slack user, a PagerDuty agent, a token's
  // name): kept on the incident, so known for its current generation only.
  std::optional<WallTime> acked_at{};
  std::string acked_by{};
};

// What a key's timeline is drawn from: each list the newest `limit` (see ReadTimeline), oldest
// first.
struct StoredTimeline {
  std::vector<LoggedDecision> decisions;    // by version
  std::vector<LoggedMark> marks;            // by (at, poll id)
  std::vector<LoggedAttempt> attempts;      // by (at, idempotency key, attempt)
  std::vector<GenerationSpan> generations;  // every generation > 0 of the decision log or outbox
};

// The operator's side of the store: silences and dead outbox rows. Each method is one short
// transaction; implementations are safe to use from several processes at once (one instance
// per thread). Every method may fail with kUnavailable, kTimeout or kInternal.
class OperatorStore {
 public:
  virtual ~OperatorStore() = default;

  // Stores `silence` (its id is ignored) and returns the id it was given; ids are not reused.
  virtual Result<uint64_t> AddSilence(const Silence& silence) = 0;
  // The silences by id; only those active at `active_at` when given.
  virtual Result<std::vector<Silence>> ListSilences(std::optional<WallTime> active_at) = 0;
  // kNotFound when no silence has `id`.
  virtual Status RemoveSilence(uint64_t id) = 0;

  // Puts a dead row back to pending, attempts 0, due at `now`, lease cleared; the last error
  // is kept. A row older than a sent sibling goes to superseded instead (it would never be
  // claimed). Returns the new status. kNotFound for an unknown key, kRejected when not dead.
  virtual Result<OutboxStatus> RetryDead(std::string_view idempotency_key, WallTime now) = 0;
  // RetryDead for every dead row, or only those on `channel` when given, in one transaction;
  // returns how many went back to pending and how many to superseded.
  struct RetriedRows {
    uint64_t pending = 0;
    uint64_t superseded = 0;
  };
  virtual Result<RetriedRows> RetryAllDead(std::optional<std::string_view> channel,
                                           WallTime now) = 0;
  // Marks a dead row dropped (kept for the record, never sent). kNotFound, kRejected as above.
  virtual Status DropDead(std::string_view idempotency_key, WallTime now) = 0;

  // The channels with outbox rows of (key, generation), by channel name.
  virtual Result<std::vector<ChannelUse>> GenerationChannels(std::string_view key,
                                                             uint64_t generation) = 0;

  // What a group message's callback may touch (core/delivery/callback_key.h): the incident
  // generations, open now, that the group message whose idempotency key is `group_row`
  // carried, by key.
  virtual Result<std::vector<IncidentGeneration>> OpenMembersOfMessage(
      std::string_view group_row) = 0;
  // The incident generations, open now, that messages of (`channel`, `group_key`) carried,
  // taken into a message at or before `carried_by`, by key; every channel's when `channel` is
  // empty. With `episode`, none unless it is the group's current episode on `channel`: an
  // episode ends when a message leaves nothing open, so every generation it carried was
  // resolved by then.
  virtual Result<std::vector<IncidentGeneration>> OpenMembersOfGroup(
      std::string_view channel, std::string_view group_key, std::optional<uint64_t> episode,
      WallTime carried_by) = 0;

  // The incidents the messages of (`channel`, `group_key`) carried, open or not (retention
  // forgets rows), each with the newest generation carried, the first `limit` in key order.
  virtual Result<std::vector<IncidentGeneration>> GroupMemberKeys(std::string_view channel,
                                                                  std::string_view group_key,
                                                                  size_t limit) = 0;

  // The newest `limit` decision lines of `key`, highest version first (retention may have
  // pruned older ones). Empty for a key with none.
  virtual Result<std::vector<LoggedDecision>> RecentDecisions(std::string_view key,
                                                              size_t limit) = 0;
  // The newest `limit` outbox rows of `key`, by generation and version descending, then by
  // channel, with group_key and group_row (a grouped row's group, and the group message that
  // took it). Empty for a key with none.
  virtual Result<std::vector<OutboxRow>> RecentOutbox(std::string_view key, size_t limit) = 0;
  // The group messages (rows of a group key, core::MakeGroupRow) that took a grouped row of
  // `key`, newest first (created_at, then idempotency key), at most `limit`, their payloads left
  // empty (a group's holds every member). Empty for a key never grouped.
  virtual Result<std::vector<OutboxRow>> GroupMessagesOf(std::string_view key, size_t limit) = 0;

  // The newest `limit` decision lines, observation marks, delivery attempts and generations of
  // `key`, each list oldest first, read in one snapshot. Empty lists for a key with none.
  virtual Result<StoredTimeline> ReadTimeline(std::string_view key, size_t limit) = 0;

  // One page of the incident list: filtered, ordered and windowed by the store (its indexes),
  // with the total matching before the window. Read outside any poll transaction; the total
  // and the page are two reads, so a write between them can make them differ by that write.
  virtual Result<IncidentPage> ListIncidentPage(const IncidentPageQuery& query) = 0;

  // Stores `window` (its id is ignored) and returns the id it was given; ids are not reused.
  virtual Result<uint64_t> AddOneOffWindow(const OneOffWindow& window) = 0;
  // The one-off windows whose ends_at is after `ends_after`, newest starts_at first (then id).
  virtual Result<std::vector<OneOffWindow>> ListOneOffWindows(WallTime ends_after) = 0;
  // Ends window `id` at `now` and returns it so; kNotFound for an unknown id, kConflict when it
  // had ended already (ends_at <= now).
  virtual Result<OneOffWindow> ExpireOneOffWindow(uint64_t id, WallTime now) = 0;
};

}  // namespace quell::core
