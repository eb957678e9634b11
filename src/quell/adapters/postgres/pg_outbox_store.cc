// PgIncidentStore's OutboxStore side: the dispatcher's claims and outcomes.
#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "quell/adapters/postgres/pg_connection.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/store_common/outbox_common.h"
#include "quell/core/delivery/group_members.h"

namespace quell::postgres {
namespace {

using core::Status;

// Each inner SELECT picks and locks due rows; SKIP LOCKED lets a concurrent claimer pass over
// rows another is leasing instead of waiting for it. Under READ COMMITTED a row that another
// claim leased meanwhile is re-checked on its new version and drops out, so two owners never
// hold one row. Rows a dead holder left (their lease over, through outbox_leases) come first,
// then pending rows in due order through outbox_pending_due; both range reads stop at the first
// row not yet due, so a backlog backing off costs a claim nothing, and the slice keeps the two
// to the limit. Due ties go in byte order, the index's. The guards: no older sibling still to
// deliver (sends keep their order: a claim holds at most the oldest live row of a key and
// channel, whatever order it reads rows in), through outbox_live (byte order, hence the
// COLLATE), and no newer sibling already sent (the supersede rule at claim time), through the
// unique index. Each is a range probe on (key, channel, generation, version) of a few rows,
// never a key's whole history; OFFSET 0 keeps each a per-row probe, so the planner can neither
// make it a join (a lagging estimate once had it scan every sent row per claim) nor hash the
// outbox for it. The sent probe tests status through coalesce so that no partial index of
// finished rows (outbox_sent, outbox_done) can answer it: analyzed while few rows were
// finished, they look empty, and the planner read one whole per probe as a batch was sent.
// "= ANY(...)" keeps the outer UPDATE on the primary key. A claim counts in claims, not in
// attempts: the attempt is counted with its outcome, so a holder that dies costs none.
#define QUELL_CLAIM_GUARDS                                                                     \
  " AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.key = o.key COLLATE \"C\" AND"              \
  " p.channel = o.channel COLLATE \"C\" AND p.status IN ('pending', 'in_flight') AND"          \
  " (p.generation, p.version) < (o.generation, o.version) OFFSET 0)"                           \
  " AND NOT EXISTS (SELECT 1 FROM outbox n WHERE n.key = o.key AND n.channel = o.channel AND"  \
  " coalesce(n.status, '') = 'sent' AND (n.generation, n.version) > (o.generation, o.version)" \
  " OFFSET 0)"
constexpr const char* kClaimSql =
    "UPDATE outbox u SET status = 'in_flight', lease_owner = $1, lease_expires_at = $3,"
    " claims = u.claims + 1, updated_at = $2 WHERE u.idempotency_key = ANY((ARRAY("
    "SELECT o.idempotency_key FROM outbox o WHERE o.status = 'in_flight' AND"
    " o.lease_expires_at <= $2" QUELL_CLAIM_GUARDS
    " ORDER BY o.lease_expires_at LIMIT $4 FOR UPDATE SKIP LOCKED) || ARRAY("
    "SELECT o.idempotency_key FROM outbox o WHERE o.status = 'pending' AND"
    " o.next_attempt_at <= $2" QUELL_CLAIM_GUARDS
    " ORDER BY o.next_attempt_at, o.key COLLATE \"C\", o.channel COLLATE \"C\", o.generation,"
    " o.version LIMIT $4 FOR UPDATE SKIP LOCKED))[1:$4::int]) RETURNING ";
#undef QUELL_CLAIM_GUARDS

// The whole batch in one statement, so one transaction and one round trip. An outcome applies
// only while `owner` ($2) still holds the row's lease; a sent row supersedes its older pending
// siblings, as MarkSent does. The keys returned are the outcomes that applied. `counted` is
// the attempt an outcome counts (0 or 1), `throttle` what becomes of throttled_since (see
// store::ThrottleMark). Each applied outcome is one attempt of its row's timeline, numbered
// by the row's claims: one outcome applies per claim (the lease ends with it).
constexpr const char* kOutcomesSql =
    "WITH u AS (SELECT * FROM unnest($3::text[], $4::text[], $5::text[], $6::text[],"
    " $7::bigint[], $8::bigint[], $9::bigint[], $10::text[], $11::text[]) AS u(idempotency_key,"
    " status, remote_id, error, next_at, counted, throttle, outcome, detail)),"
    " done AS (UPDATE outbox o SET status = u.status,"
    " remote_message_id = CASE WHEN u.status = 'sent' THEN u.remote_id"
    " ELSE o.remote_message_id END,"
    " last_error = CASE WHEN u.status = 'sent' THEN o.last_error ELSE u.error END,"
    " next_attempt_at = CASE WHEN u.status = 'pending' THEN u.next_at"
    " ELSE o.next_attempt_at END, attempts = o.attempts + u.counted,"
    " throttled_since = CASE u.throttle WHEN 1 THEN coalesce(o.throttled_since, $1)"
    " WHEN 0 THEN NULL ELSE o.throttled_since END,"
    " lease_owner = '', lease_expires_at = NULL, updated_at = $1 FROM u"
    " WHERE o.idempotency_key = u.idempotency_key AND o.lease_owner = $2 AND"
    " o.status = 'in_flight' RETURNING o.idempotency_key, o.key, o.channel, o.generation,"
    " o.version, o.status, o.claims, u.outcome, u.detail),"
    " attempts AS (INSERT INTO delivery_attempts (idempotency_key, attempt, key, channel,"
    " generation, at, outcome, detail) SELECT idempotency_key, claims, key, channel, generation,"
    " $1, outcome, detail FROM done ON CONFLICT DO NOTHING RETURNING 1),"
    " superseded AS (UPDATE outbox p SET status = 'superseded', updated_at = $1 FROM done s"
    " WHERE s.status = 'sent' AND p.key = s.key AND p.channel = s.channel AND"
    " p.status = 'pending' AND (p.generation < s.generation OR"
    " (p.generation = s.generation AND p.version < s.version)) RETURNING 1)"
    " SELECT idempotency_key FROM done";

// Finished rows past the cutoff, oldest first (the first term is outbox_done's predicate, so
// the planner may walk that index), a batch per statement (its own short transaction, so
// writers wait for one batch at most). SKIP LOCKED passes over a row an operator is changing;
// the outer condition re-checks it. The rows of an open incident's current generation stay:
// its follow-ups thread on the first one sent.
// A grouped row goes only once its group row is gone: a waiting member, or a member of a group
// row still to send (or dead, which an operator may retry), is what that message lists.
// OFFSET 0 keeps both checks per-row probes of the rows the batch walks (an incident by key, a
// group row by its key): otherwise the planner may answer one by hashing every incident or
// every outbox row, a cost that grows with history for a batch of at most $2 rows.
constexpr const char* kTrimSql =
    "DELETE FROM outbox WHERE idempotency_key = ANY(ARRAY(SELECT o.idempotency_key FROM"
    " outbox o WHERE o.status NOT IN ('pending', 'in_flight') AND o.status IN ('sent', 'dead',"
    " 'dropped', 'shadow', 'superseded', 'folded', 'silenced', 'grouped', 'muted',"
    " 'cancelled', 'inhibited') AND"
    " o.updated_at < $1 AND NOT EXISTS (SELECT 1 FROM incidents i WHERE i.key = o.key AND"
    " i.generation = o.generation AND i.status = 'open' OFFSET 0) AND (o.status <> 'grouped' OR"
    " (o.group_row IS NOT NULL AND NOT EXISTS (SELECT 1 FROM outbox g WHERE"
    " g.idempotency_key = o.group_row OFFSET 0)))"
    " ORDER BY o.updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)) AND status IN ('sent', 'dead',"
    " 'dropped', 'shadow', 'superseded', 'folded', 'silenced', 'grouped', 'muted',"
    " 'cancelled', 'inhibited') AND"
    " updated_at < $1";

// A claimed escalation row that is no longer wanted (see OutboxStore::CancelUnwantedTierRows).
// The incidents are read FOR SHARE: an ack committing meanwhile is waited for and seen, so a
// tier is either checked before the ack or cancelled by it.
constexpr const char* kCancelTierRowsSql =
    "WITH wanted AS (SELECT i.key, i.generation FROM incidents i WHERE i.key = ANY($1::text[])"
    " AND i.status = 'open' AND i.acked_at IS NULL FOR SHARE)"
    " UPDATE outbox o SET status = 'cancelled', lease_owner = '', lease_expires_at = NULL,"
    " updated_at = $3 WHERE o.idempotency_key = ANY($4::text[]) AND o.lease_owner = $2 AND"
    " o.status = 'in_flight' AND o.tier > 0 AND ((o.transition = 'open' AND NOT EXISTS"
    " (SELECT 1 FROM wanted w WHERE w.key = o.key AND w.generation = o.generation)) OR"
    " (o.transition <> 'open' AND NOT EXISTS (SELECT 1 FROM outbox s WHERE s.key = o.key AND"
    " s.channel = o.channel AND s.generation = o.generation AND s.transition = 'open' AND"
    " s.status = 'sent'))) RETURNING o.idempotency_key";

// A notice row is new and pending, never leased: nothing of its (key, channel) was sent after
// it, and a twin from another dispatcher is skipped by its idempotency key.
constexpr const char* kInsertNoticeSql =
    "INSERT INTO outbox (idempotency_key, key, generation, version, transition, channel,"
    " payload, status, attempts, next_attempt_at, lease_owner, lease_expires_at, last_error,"
    " remote_message_id, created_at, updated_at, kind) VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
    " 0, $9, '', NULL, '', '', $10, $10, $11) ON CONFLICT DO NOTHING";

// kInsertNoticeSql's parameters for `row`.
std::vector<std::string> NoticeParams(const core::OutboxRow& row) {
  return {row.idempotency_key,
          row.key,
          std::to_string(row.generation),
          std::to_string(row.version),
          core::TransitionName(row.transition),
          row.channel,
          row.payload,
          core::OutboxStatusName(row.status),
          std::to_string(store::ToMicros(row.next_attempt_at)),
          std::to_string(store::ToMicros(row.created_at)),
          core::OutboxRowKindName(row.kind)};
}

}  // namespace

core::Result<std::vector<core::OutboxRow>> PgIncidentStore::ClaimDue(std::string_view owner,
                                                                     core::WallTime now,
                                                                     core::Duration lease,
                                                                     size_t limit) {
  std::vector<core::OutboxRow> out;
  if (limit == 0) return out;
  // The returned columns are kOutboxColumns of the updated row, then claims and
  // throttled_since.
  static const std::string sql =
      std::string(kClaimSql) +
      "u.idempotency_key, u.key, u.generation, u.version, u.transition, u.channel, u.payload,"
      " u.status, u.attempts, u.next_attempt_at, u.lease_owner, u.lease_expires_at,"
      " u.last_error, u.remote_message_id, u.created_at, u.updated_at, u.kind, u.claims,"
      " u.throttled_since, u.tier";
  auto result =
      connection_->Run(sql, {std::string(owner), std::to_string(store::ToMicros(now)),
                             std::to_string(store::ToMicros(now + lease)), std::to_string(limit)});
  if (!result) return result.error();
  const PGresult* r = result->get();
  for (int i = 0; i < PQntuples(r); ++i) {
    auto row = ReadOutboxRow(r, i);
    if (!row) return row.error();
    row->claims = static_cast<uint32_t>(UintAt(r, i, kOutboxColumnCount));
    row->throttled_since = TimeAt(r, i, kOutboxColumnCount + 1);
    row->tier = static_cast<uint32_t>(UintAt(r, i, kOutboxColumnCount + 2));
    out.push_back(std::move(*row));
  }
  // RETURNING yields rows in no particular order; byte order, as the claim's ORDER BY.
  std::sort(out.begin(), out.end(), [](const core::OutboxRow& a, const core::OutboxRow& b) {
    return std::tie(a.key, a.channel, a.generation, a.version) <
           std::tie(b.key, b.channel, b.generation, b.version);
  });
  return out;
}

core::Result<std::vector<std::string>> PgIncidentStore::CancelUnwantedTierRows(
    std::string_view owner, std::span<const core::OutboxRow> claimed, core::WallTime now) {
  std::vector<std::string> cancelled;
  ArrayBuilder keys;
  ArrayBuilder rows;
  for (const core::OutboxRow& row : claimed) {
    if (row.tier == 0) continue;
    keys.Text(row.key);
    rows.Text(row.idempotency_key);
  }
  // One statement: its own transaction.
  auto result = connection_->Run(
      kCancelTierRowsSql,
      {keys.Finish(), std::string(owner), std::to_string(store::ToMicros(now)), rows.Finish()});
  if (!result) return result.error();
  cancelled.reserve(static_cast<size_t>(PQntuples(result->get())));
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    cancelled.push_back(TextAt(result->get(), i, 0));
  }
  return cancelled;
}

core::Result<std::vector<Status>> PgIncidentStore::RecordOutcomes(
    std::string_view owner, std::span<const core::OutboxOutcome> outcomes, core::WallTime now) {
  std::vector<Status> statuses;
  statuses.reserve(outcomes.size());
  if (outcomes.empty()) return statuses;
  std::vector<ArrayBuilder> cols(9);
  for (const core::OutboxOutcome& o : outcomes) {
    cols[0].Text(o.idempotency_key);
    cols[1].Text(store::OutcomeStatus(o.kind));
    cols[2].Text(o.remote_message_id);
    cols[3].Text(o.error);
    cols[4].Int(store::ToMicros(o.next_attempt_at));
    cols[5].Int(store::CountedAttempt(o));
    cols[6].Int(store::ThrottleMark(o));
    cols[7].Text(store::AttemptOutcome(o));
    cols[8].Text(store::AttemptDetail(o));
  }
  std::vector<std::string> params = {std::to_string(store::ToMicros(now)), std::string(owner)};
  for (ArrayBuilder& c : cols) params.push_back(c.Finish());
  // Deaths with a dead-letter notice: the outcomes and the notices commit together, so a
  // crash between them cannot lose a notice (nor make a second, by its idempotency key).
  const bool notices = std::any_of(outcomes.begin(), outcomes.end(), [](const auto& o) {
    return o.kind == core::OutboxOutcome::Kind::kDead && o.notice.has_value();
  });
  Connection& c = *connection_;
  const auto fail = [&c](core::Error error) -> core::Result<std::vector<Status>> {
    (void)c.Run("ROLLBACK");
    return error;
  };
  if (notices) {
    if (auto begun = c.Run("BEGIN"); !begun) return begun.error();
  }
  auto result = c.Run(kOutcomesSql, params);
  if (!result) return notices ? fail(result.error()) : result.error();
  std::set<std::string, std::less<>> applied;
  for (int i = 0; i < PQntuples(result->get()); ++i) applied.insert(TextAt(result->get(), i, 0));
  if (notices) {
    std::set<std::string, std::less<>> inserted;
    for (const core::OutboxOutcome& o : outcomes) {
      if (o.kind != core::OutboxOutcome::Kind::kDead || !o.notice ||
          !applied.contains(o.idempotency_key) ||
          !inserted.insert(o.notice->idempotency_key).second) {
        continue;
      }
      const core::OutboxRow& n = *o.notice;
      auto put = c.Run(std::string(kInsertNoticeSql), NoticeParams(n));
      if (!put) return fail(put.error());
    }
    if (auto committed = c.Run("COMMIT"); !committed) return fail(committed.error());
  }
  for (const core::OutboxOutcome& o : outcomes) {
    // erase: a key listed twice in one batch applies once.
    if (applied.erase(o.idempotency_key) == 1) {
      statuses.emplace_back();
    } else {
      statuses.emplace_back(
          MakeError(ErrorCode::kConflict, "the lease on outbox row " + o.idempotency_key +
                                              " is no longer held by " + std::string(owner)));
    }
  }
  return statuses;
}

core::Result<std::vector<core::WallTime>> PgIncidentStore::SentTimes(std::string_view channel,
                                                                     core::WallTime since) {
  static const std::string sql =
      "SELECT updated_at FROM outbox WHERE channel = $1 AND status = 'sent' AND"
      " updated_at >= $2 ORDER BY updated_at";
  auto result =
      connection_->Run(sql, {std::string(channel), std::to_string(store::ToMicros(since))});
  if (!result) return result.error();
  std::vector<core::WallTime> out;
  out.reserve(static_cast<size_t>(PQntuples(result->get())));
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    out.push_back(store::FromMicros(ParseInt(PQgetvalue(result->get(), i, 0))));
  }
  return out;
}

core::Result<std::vector<core::OutboxRow>> PgIncidentStore::FoldedRows(std::string_view channel,
                                                                       std::string_view tenant,
                                                                       core::WallTime start,
                                                                       core::WallTime end) {
  // The tenant's keys are the range [tenant + ':', tenant + ';') in byte order.
  static const std::string sql =
      "SELECT idempotency_key, key, generation, version, transition, channel, payload, status,"
      " attempts, next_attempt_at, lease_owner, lease_expires_at, last_error,"
      " remote_message_id, created_at, updated_at, kind FROM outbox WHERE channel = $1 AND"
      " key COLLATE \"C\" >= $2 AND key COLLATE \"C\" < $3 AND status = 'folded' AND"
      " created_at >= $4 AND created_at < $5 ORDER BY created_at, key COLLATE \"C\"";
  auto result = connection_->Run(
      sql, {std::string(channel), std::string(tenant) + ":", std::string(tenant) + ";",
            std::to_string(store::ToMicros(start)), std::to_string(store::ToMicros(end))});
  if (!result) return result.error();
  std::vector<core::OutboxRow> out;
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    auto row = ReadOutboxRow(result->get(), i);
    if (!row) return row.error();
    out.push_back(std::move(*row));
  }
  return out;
}

core::Result<std::vector<core::OutboxRow>> PgIncidentStore::DeadRows(core::WallTime start,
                                                                     core::WallTime end) {
  static const std::string sql = std::string("SELECT ") + kOutboxColumns +
                                 " FROM outbox WHERE status = 'dead' AND updated_at >= $1 AND"
                                 " updated_at < $2 ORDER BY updated_at, key COLLATE \"C\","
                                 " channel COLLATE \"C\"";
  auto result = connection_->Run(
      sql, {std::to_string(store::ToMicros(start)), std::to_string(store::ToMicros(end))});
  if (!result) return result.error();
  std::vector<core::OutboxRow> out;
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    auto row = ReadOutboxRow(result->get(), i);
    if (!row) return row.error();
    out.push_back(std::move(*row));
  }
  return out;
}

core::Result<uint64_t> PgIncidentStore::TrimOutbox(core::WallTime cutoff, size_t limit) {
  if (limit == 0) return uint64_t{0};
  auto result = connection_->Run(std::string(kTrimSql),
                                 {std::to_string(store::ToMicros(cutoff)), std::to_string(limit)});
  if (!result) return result.error();
  return Affected(result->get());
}

core::Result<std::vector<core::WaitingGroup>> PgIncidentStore::WaitingGroups() {
  static const std::string sql =
      "SELECT w.channel, w.group_key, min(GREATEST(w.created_at, w.next_attempt_at)),"
      " g.last_message_at FROM outbox w"
      " LEFT JOIN outbox_groups g ON g.channel = w.channel AND g.group_key = w.group_key"
      " WHERE w.status = 'grouped' AND w.group_row IS NULL"
      " GROUP BY w.channel, w.group_key, g.last_message_at"
      " ORDER BY w.channel COLLATE \"C\", w.group_key COLLATE \"C\"";
  auto result = connection_->Run(sql, {});
  if (!result) return result.error();
  std::vector<core::WaitingGroup> out;
  out.reserve(static_cast<size_t>(PQntuples(result->get())));
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    out.push_back(core::WaitingGroup{.channel = TextAt(result->get(), i, 0),
                                     .group_key = TextAt(result->get(), i, 1),
                                     .first_waiting = *TimeAt(result->get(), i, 2),
                                     .last_message_at = TimeAt(result->get(), i, 3)});
  }
  return out;
}

core::Result<std::optional<core::OutboxRow>> PgIncidentStore::AssembleGroup(
    std::string_view channel, std::string_view group_key, core::WallTime now,
    const core::GroupPlanner& plan) {
  using Assembled = core::Result<std::optional<core::OutboxRow>>;
  Connection& c = *connection_;
  const auto fail = [&c](core::Error error) -> Assembled {
    (void)c.Run("ROLLBACK");
    return error;
  };
  const auto nothing = [&c]() -> Assembled {
    if (auto done = c.Run("ROLLBACK"); !done) return done.error();
    return std::optional<core::OutboxRow>{};
  };
  const std::string ch(channel);
  const std::string gk(group_key);
  if (auto begun = c.Run("BEGIN"); !begun) return begun.error();
  // FOR UPDATE: a second assembler waits here for the first to commit, then finds these rows
  // taken (READ COMMITTED re-checks group_row IS NULL on their new version) and skips them, so
  // the facts the plan decides on stay true until the commit.
  // Ready members only: an escalation tier's open waits for its tier's time (next_attempt_at).
  // The comparisons are in "C", outbox_waiting's collation, so the index serves them.
  static const std::string waiting_sql =
      "SELECT idempotency_key, key, generation, version, transition,"
      " GREATEST(created_at, next_attempt_at) AS ready FROM outbox WHERE channel = $1 COLLATE"
      " \"C\" AND group_key = $2 COLLATE \"C\" AND status = 'grouped' AND group_row IS NULL"
      " AND next_attempt_at <= $3 ORDER BY ready, key COLLATE \"C\" FOR UPDATE";
  const std::string now_us = std::to_string(store::ToMicros(now));
  auto waiting = c.Run(waiting_sql, {ch, gk, now_us});
  if (!waiting) return fail(waiting.error());
  const PGresult* w = waiting->get();
  const int n = PQntuples(w);
  if (n == 0) return nothing();
  core::GroupFacts facts{.channel = ch,
                         .group_key = gk,
                         .at = now,
                         .ready = {},
                         .first_waiting = *TimeAt(w, 0, 5),
                         .taken = {},
                         .state = std::nullopt};
  facts.ready.reserve(static_cast<size_t>(n));
  ArrayBuilder ids;
  for (int i = 0; i < n; ++i) {
    ids.Text(TextAt(w, i, 0));
    auto transition = core::ParseTransitionName(TextAt(w, i, 4));
    if (!transition) return fail(transition.error());
    facts.ready.push_back(core::GroupMemberFact{.key = TextAt(w, i, 1),
                                                .generation = UintAt(w, i, 2),
                                                .version = UintAt(w, i, 3),
                                                .transition = *transition});
  }
  static const std::string state_sql =
      "SELECT last_sequence, last_message_at, episode FROM outbox_groups WHERE channel = $1 AND"
      " group_key = $2 FOR UPDATE";
  auto state = c.Run(state_sql, {ch, gk});
  if (!state) return fail(state.error());
  if (PQntuples(state->get()) > 0) {
    facts.state = core::GroupState{.last_sequence = UintAt(state->get(), 0, 0),
                                   .last_message_at = *TimeAt(state->get(), 0, 1),
                                   .episode = std::nullopt};
    // NULL: kept before episodes were.
    if (PQgetisnull(state->get(), 0, 2) == 0) facts.state->episode = UintAt(state->get(), 0, 2);
  }
  // For each key the group's built messages took, its latest member.
  static const std::string taken_sql =
      "SELECT key, generation, version, transition FROM (SELECT key, generation, version,"
      " transition, row_number() OVER (PARTITION BY key ORDER BY generation DESC, version DESC)"
      " AS n FROM outbox WHERE channel = $1 COLLATE \"C\" AND group_key = $2 COLLATE \"C\""
      " AND status = 'grouped' AND group_row IS NOT NULL) AS latest WHERE n = 1";
  auto taken = c.Run(taken_sql, {ch, gk});
  if (!taken) return fail(taken.error());
  const PGresult* t = taken->get();
  facts.taken.reserve(static_cast<size_t>(PQntuples(t)));
  for (int i = 0; i < PQntuples(t); ++i) {
    auto transition = core::ParseTransitionName(TextAt(t, i, 3));
    if (!transition) return fail(transition.error());
    facts.taken.push_back(core::GroupMemberFact{.key = TextAt(t, i, 0),
                                                .generation = UintAt(t, i, 1),
                                                .version = UintAt(t, i, 2),
                                                .transition = *transition});
  }
  std::optional<core::GroupMessage> message = plan(facts);
  if (!message) return nothing();
  core::OutboxRow& group = message->row;
  auto put = c.Run(std::string(kInsertNoticeSql), NoticeParams(group));
  if (!put) return fail(put.error());
  if (Affected(put->get()) == 0) return nothing();  // built already: its key exists
  static const std::string mark_sql =
      "UPDATE outbox SET group_row = $1, updated_at = $2 WHERE idempotency_key = ANY($3::text[])";
  if (auto marked = c.Run(mark_sql, {group.idempotency_key, now_us, ids.Finish()}); !marked) {
    return fail(marked.error());
  }
  static const std::string upsert_sql =
      "INSERT INTO outbox_groups (channel, group_key, last_sequence, last_message_at, episode)"
      " VALUES ($1, $2, $3, $4, NULLIF($5, '')::bigint) ON CONFLICT (channel, group_key) DO"
      " UPDATE SET last_sequence = excluded.last_sequence,"
      " last_message_at = excluded.last_message_at, episode = excluded.episode";
  const core::GroupState& after = message->state_after;
  if (auto up = c.Run(upsert_sql, {ch, gk, std::to_string(after.last_sequence),
                                   std::to_string(store::ToMicros(after.last_message_at)),
                                   after.episode ? std::to_string(*after.episode) : std::string()});
      !up) {
    return fail(up.error());
  }
  if (auto committed = c.Run("COMMIT"); !committed) return fail(committed.error());
  return std::optional<core::OutboxRow>(std::move(group));
}

core::Result<std::vector<core::OutboxRow>> PgIncidentStore::GroupMembers(
    std::string_view group_row) {
  static const std::string sql = std::string("SELECT ") + kOutboxColumns +
                                 " FROM outbox WHERE group_row = $1 COLLATE \"C\""
                                 " ORDER BY created_at, key COLLATE \"C\"";
  auto result = connection_->Run(sql, {std::string(group_row)});
  if (!result) return result.error();
  std::vector<core::OutboxRow> out;
  out.reserve(static_cast<size_t>(PQntuples(result->get())));
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    auto row = ReadOutboxRow(result->get(), i);
    if (!row) return row.error();
    out.push_back(std::move(*row));
  }
  core::SortWaitingMembers(out);
  return out;
}

core::Result<core::GroupStanding> PgIncidentStore::GroupStandingAt(std::string_view channel,
                                                                   std::string_view group_key,
                                                                   core::WallTime at) {
  // The keys the group's built messages named whose incident is open now.
  static const std::string sql =
      "SELECT DISTINCT o.key FROM outbox o JOIN incidents i ON i.key = o.key WHERE"
      " o.channel = $1 COLLATE \"C\" AND o.group_key = $2 COLLATE \"C\" AND"
      " o.status = 'grouped' AND"
      " o.group_row IS NOT NULL AND i.status = 'open'";
  auto result = connection_->Run(sql, {std::string(channel), std::string(group_key)});
  if (!result) return result.error();
  std::vector<std::string> open;
  open.reserve(static_cast<size_t>(PQntuples(result->get())));
  for (int i = 0; i < PQntuples(result->get()); ++i) open.push_back(TextAt(result->get(), i, 0));
  auto silences = ReadSilences(*connection_, at);
  if (!silences) return silences.error();
  return core::StandingOf(open, *silences, at);
}

core::Result<std::string> PgIncidentStore::ThreadRemoteId(std::string_view key, uint64_t generation,
                                                          std::string_view channel) {
  static const std::string sql =
      "SELECT remote_message_id FROM outbox WHERE key = $1 AND channel = $3 AND"
      " generation = $2 AND status = 'sent' ORDER BY version LIMIT 1";
  auto result =
      connection_->Run(sql, {std::string(key), std::to_string(generation), std::string(channel)});
  if (!result) return result.error();
  if (PQntuples(result->get()) == 0) return std::string();
  return TextAt(result->get(), 0, 0);
}

}  // namespace quell::postgres
