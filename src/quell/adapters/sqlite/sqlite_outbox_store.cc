// SqliteIncidentStore's OutboxStore side: the dispatcher's claims and outcomes.
#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "quell/adapters/sqlite/sqlite_batch_statement.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/adapters/sqlite/sqlite_statement.h"
#include "quell/adapters/store_common/outbox_common.h"
#include "quell/core/delivery/group_members.h"

namespace quell::sqlite {
namespace {

using core::ErrorCode;
using core::MakeError;
using core::Status;

// The guards keep sends in order: no row of a (key, channel) is leased while an older one is
// still to be delivered (`p`, through outbox_live), so a claim holds at most the oldest live row
// of each and the order it reads rows in never reorders a key's sends. The second guard is the
// supersede rule at claim time: a row older than a sent sibling is never sent (a lease that
// expired on it cannot resurrect it).
#define QUELL_CLAIM_GUARDS                                                                     \
  " AND NOT EXISTS (SELECT 1 FROM outbox p INDEXED BY outbox_live WHERE p.key = o.key AND"     \
  " p.channel = o.channel AND p.status IN ('pending', 'in_flight') AND"                        \
  " (p.generation < o.generation OR (p.generation = o.generation AND p.version < o.version)))" \
  " AND NOT EXISTS (SELECT 1 FROM outbox n WHERE n.key = o.key AND n.channel = o.channel AND"  \
  " n.status = 'sent' AND (n.generation > o.generation OR"                                     \
  " (n.generation = o.generation AND n.version > o.version)))"

// Rows a dead holder left (their lease over) first, then pending rows in due order: both are
// range reads that stop at the first row not yet due (outbox_leases, outbox_pending_due), so
// rows backing off cost a claim nothing however many there are. Due ties go in (key, channel,
// generation, version) order, the index's. The statuses are literals, not parameters, so SQLite
// can prove that the partial indexes apply. The compound's LIMIT counts across both halves. A
// claim counts in claims, not in attempts: the attempt is counted with its outcome, so a
// holder that dies costs none.
constexpr const char* kClaimSql =
    "UPDATE outbox SET status = 'in_flight', lease_owner = ?1, lease_expires_at = ?3,"
    " claims = claims + 1, updated_at = ?2 WHERE rowid IN ("
    " SELECT o.rowid FROM outbox o INDEXED BY outbox_leases WHERE o.status = 'in_flight' AND"
    " o.lease_expires_at <= ?2" QUELL_CLAIM_GUARDS
    " UNION ALL SELECT rowid FROM (SELECT o.rowid FROM outbox o INDEXED BY outbox_pending_due"
    " WHERE o.status = 'pending' AND o.next_attempt_at <= ?2" QUELL_CLAIM_GUARDS
    " ORDER BY o.next_attempt_at, o.key, o.channel, o.generation, o.version) LIMIT ?4)"
    " RETURNING ";
#undef QUELL_CLAIM_GUARDS
// After kOutboxColumns in the claim's RETURNING.
constexpr const char* kClaimExtraColumns = ", claims, throttled_since, tier";

// A claimed escalation row that is no longer wanted (see OutboxStore::CancelUnwantedTierRows):
// an open whose incident generation is no longer open or was acked, a follow-up whose
// channel never had the generation's open sent.
constexpr const char* kCancelTierRowSql =
    "UPDATE outbox SET status = 'cancelled', lease_owner = '', lease_expires_at = NULL,"
    " updated_at = ?3 WHERE idempotency_key = ?1 AND lease_owner = ?2 AND status = 'in_flight'"
    " AND tier > 0 AND ((transition = 'open' AND NOT EXISTS (SELECT 1 FROM incidents i WHERE"
    " i.key = outbox.key AND i.generation = outbox.generation AND i.status = 'open' AND"
    " i.acked_at IS NULL)) OR (transition <> 'open' AND NOT EXISTS (SELECT 1 FROM outbox s"
    " WHERE s.key = outbox.key AND s.channel = outbox.channel AND"
    " s.generation = outbox.generation AND s.transition = 'open' AND s.status = 'sent')))"
    " RETURNING idempotency_key";

// A batch of outcomes, one statement per batch (BatchStatement: `rows` groups of (idempotency
// key, status, remote id, error, next attempt, counted attempt, throttle mark) from ?3). Each
// applies only while `owner` (?1) still holds the lease: a row that went back to in_flight under
// another owner, or was recorded already, changes nothing and is not returned. The counted
// attempt is 0 or 1; the throttle mark says what becomes of throttled_since (see
// store::ThrottleMark). ?2 is now.
std::string OutcomesSql(size_t rows) {
  return "UPDATE outbox SET status = o.status, remote_message_id = CASE WHEN o.status = 'sent'"
         " THEN o.remote ELSE remote_message_id END, last_error = CASE WHEN o.status = 'sent' THEN"
         " last_error ELSE o.error END, next_attempt_at = CASE WHEN o.status = 'pending' THEN"
         " o.next ELSE next_attempt_at END, attempts = attempts + o.counted, throttled_since ="
         " CASE o.throttle WHEN 1 THEN coalesce(throttled_since, ?2) WHEN 0 THEN NULL ELSE"
         " throttled_since END, lease_owner = '', lease_expires_at = NULL, updated_at = ?2"
         " FROM (SELECT column1 AS k, column2 AS status, column3 AS remote, column4 AS error,"
         " column5 AS next, column6 AS counted, column7 AS throttle FROM (VALUES " +
         ValuesGroups(rows, 7, 3) +
         ")) AS o WHERE outbox.idempotency_key = o.k AND outbox.lease_owner = ?1 AND"
         " outbox.status = 'in_flight' RETURNING idempotency_key, key, channel, generation,"
         " version, claims";
}

// Each applied outcome is one attempt of its row's timeline, in the order the outcomes came
// (groups of (idempotency key, attempt, key, channel, generation, outcome, detail) from ?2; ?1
// is now). The row's claims number it: one outcome applies per claim (the lease ends with it),
// so the pair is new unless the same transaction is replayed.
std::string AttemptsSql(size_t rows) {
  return "INSERT INTO delivery_attempts (idempotency_key, attempt, key, channel, generation, at,"
         " outcome, detail) VALUES " +
         ValuesGroups(rows, 7, 2, 1, 5) + " ON CONFLICT DO NOTHING";
}

// A sent row supersedes its (key, channel)'s older pending rows: groups of (key, channel,
// generation, version) from ?2; ?1 is now. Pending rows are live: outbox_live holds the few
// the key has now, where the unique index would walk every generation it ever had. Its
// predicate is repeated, so SQLite can prove the index applies.
std::string SupersedeSql(size_t rows) {
  return "UPDATE outbox INDEXED BY outbox_live SET status = 'superseded', updated_at = ?1 FROM"
         " (SELECT column1 AS key, column2 AS channel, column3 AS generation, column4 AS version"
         " FROM (VALUES " +
         ValuesGroups(rows, 4, 2) +
         ")) AS s WHERE outbox.key = s.key AND outbox.channel = s.channel AND outbox.status IN"
         " ('pending', 'in_flight') AND outbox.status = 'pending' AND"
         " (outbox.generation < s.generation OR"
         " (outbox.generation = s.generation AND outbox.version < s.version))";
}

// Finished rows past the cutoff, oldest first through outbox_done (its predicate repeated
// first, so SQLite may use it), a batch per statement (its own short transaction, so writers
// wait for one batch at most). The rows of an open incident's current generation stay: its
// follow-ups thread on the first one sent.
// A grouped row goes only once its group row is gone: a waiting member, or a member of a group
// row still to send (or dead, which an operator may retry), is what that message lists.
constexpr const char* kTrimSql =
    "DELETE FROM outbox WHERE rowid IN (SELECT o.rowid FROM outbox o INDEXED BY outbox_done"
    " WHERE o.status NOT IN ('pending', 'in_flight') AND o.status IN ('sent', 'dead',"
    " 'dropped', 'shadow', 'superseded', 'folded', 'silenced', 'grouped', 'muted',"
    " 'cancelled', 'inhibited') AND"
    " o.updated_at < ?1 AND NOT EXISTS (SELECT 1 FROM incidents i WHERE i.key = o.key AND"
    " i.generation = o.generation AND i.status = 'open') AND (o.status <> 'grouped' OR"
    " (o.group_row IS NOT NULL AND NOT EXISTS (SELECT 1 FROM outbox g WHERE"
    " g.idempotency_key = o.group_row))) ORDER BY o.updated_at LIMIT ?2)";

// The group queries. A waiting member is grouped with no group_row; the literals let SQLite
// prove that outbox_waiting and outbox_group_keys apply. A member is ready at its commit, or an
// escalation tier's open at its tier's time (next_attempt_at, later than its commit).
constexpr const char* kWaitingGroupsSql =
    "SELECT w.channel, w.group_key, min(max(w.created_at, w.next_attempt_at)), g.last_message_at"
    " FROM outbox w"
    " INDEXED BY outbox_waiting LEFT JOIN outbox_groups g ON g.channel = w.channel AND"
    " g.group_key = w.group_key WHERE w.status = 'grouped' AND w.group_row IS NULL"
    " GROUP BY w.channel, w.group_key, g.last_message_at ORDER BY w.channel, w.group_key";
constexpr const char* kGroupWaitingSql =
    "SELECT key, generation, version, transition, max(created_at, next_attempt_at) AS ready"
    " FROM outbox INDEXED BY outbox_waiting WHERE channel = ?1 AND group_key = ?2 AND"
    " status = 'grouped' AND group_row IS NULL AND next_attempt_at <= ?3 ORDER BY ready";
constexpr const char* kGroupStateSql =
    "SELECT last_sequence, last_message_at, episode FROM outbox_groups WHERE channel = ?1 AND"
    " group_key = ?2";
constexpr const char* kGroupMarkSql =
    "UPDATE outbox SET group_row = ?3, updated_at = ?4 WHERE channel = ?1 AND group_key = ?2"
    " AND status = 'grouped' AND group_row IS NULL AND next_attempt_at <= ?4";
// The keys the group's built messages named whose incident is open now.
constexpr const char* kGroupOpenKeysSql =
    "SELECT DISTINCT o.key FROM outbox o INDEXED BY outbox_group_keys JOIN incidents i ON"
    " i.key = o.key WHERE o.channel = ?1 AND o.group_key = ?2 AND o.status = 'grouped' AND"
    " o.group_row IS NOT NULL AND i.status = 'open'";
// For each key the group's built messages took, its latest member.
constexpr const char* kGroupTakenSql =
    "SELECT key, generation, version, transition FROM (SELECT key, generation, version,"
    " transition, row_number() OVER (PARTITION BY key ORDER BY generation DESC, version DESC)"
    " AS n FROM outbox INDEXED BY outbox_group_keys WHERE channel = ?1 AND group_key = ?2 AND"
    " status = 'grouped' AND group_row IS NOT NULL) AS latest WHERE n = 1";
constexpr const char* kGroupUpsertSql =
    "INSERT INTO outbox_groups (channel, group_key, last_sequence, last_message_at, episode)"
    " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (channel, group_key) DO UPDATE SET"
    " last_sequence = excluded.last_sequence, last_message_at = excluded.last_message_at,"
    " episode = excluded.episode";

// Every row a prepared SELECT or RETURNING yields; the statement is reset either way.
core::Result<std::vector<core::OutboxRow>> ReadOutboxRows(Stmt& s) {
  std::vector<core::OutboxRow> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    auto parsed = ReadOutboxRow(s);
    if (!parsed) {
      s.Reset();
      return parsed.error();
    }
    out.push_back(std::move(*parsed));
  }
  s.Reset();
  return out;
}

// A notice row is new and pending: nothing of its (key, channel) was sent after it.
Status InsertNotice(Stmt& s, const core::OutboxRow& row) {
  s.BindText(1, row.idempotency_key);
  s.BindText(2, row.key);
  s.BindUint(3, row.generation);
  s.BindUint(4, row.version);
  s.BindText(5, core::TransitionName(row.transition));
  s.BindText(6, row.channel);
  s.BindText(7, row.payload);
  s.BindText(8, core::OutboxStatusName(row.status));
  s.BindUint(9, row.attempts);
  s.BindInt(10, store::ToMicros(row.next_attempt_at));
  s.BindText(11, row.lease_owner);
  s.BindTime(12, row.lease_expires_at);
  s.BindText(13, row.last_error);
  s.BindText(14, row.remote_message_id);
  s.BindInt(15, store::ToMicros(row.created_at));
  s.BindInt(16, store::ToMicros(row.updated_at));
  s.BindText(17, core::OutboxRowKindName(row.kind));
  return s.Run();
}

}  // namespace

// What RecordOutcomes learns of a row it applied, from the outcome statement's RETURNING.
struct AppliedOutcome {
  bool applied = false;
  int64_t generation = 0;
  int64_t version = 0;
  int64_t claims = 0;
  size_t key_at = 0;  // key, then channel, in OutboxStatements::arena
  size_t key_size = 0;
  size_t channel_size = 0;
};

struct SqliteIncidentStore::OutboxStatements {
  Stmt begin, commit, rollback, claim, sent_times, thread, folded;
  Stmt insert_notice, dead_rows, trim;
  Stmt waiting_groups, group_waiting, group_state, group_mark, group_taken, group_upsert;
  Stmt group_open_keys;
  Stmt group_members, cancel_tier_row;
  BatchStatement outcomes{OutcomesSql};
  BatchStatement attempts{AttemptsSql};
  BatchStatement supersede{SupersedeSql};
  // RecordOutcomes' working space, kept between batches so a batch allocates nothing per row.
  std::vector<size_t> by_key;  // outcome indexes in idempotency key order
  std::vector<size_t> rows;    // the outcome indexes a statement takes, in outcome order
  std::vector<AppliedOutcome> applied;
  std::string arena;
};

void SqliteIncidentStore::OutboxStatementsDeleter::operator()(OutboxStatements* s) const {
  delete s;  // NOLINT(cppcoreguidelines-owning-memory): the unique_ptr's deleter
}

Status SqliteIncidentStore::PrepareOutbox() {
  outbox_.reset(new OutboxStatements());
  OutboxStatements& s = *outbox_;
  const std::pair<Stmt*, std::string> sql[] = {
      {&s.begin, "BEGIN IMMEDIATE"},
      {&s.commit, "COMMIT"},
      {&s.rollback, "ROLLBACK"},
      {&s.claim, std::string(kClaimSql) + kOutboxColumns + kClaimExtraColumns},
      {&s.trim, kTrimSql},
      {&s.sent_times,
       "SELECT updated_at FROM outbox INDEXED BY outbox_sent WHERE channel = ?1 AND"
       " status = 'sent' AND updated_at >= ?2 ORDER BY updated_at"},
      {&s.thread,
       "SELECT remote_message_id FROM outbox WHERE key = ?1 AND channel = ?3 AND"
       " generation = ?2 AND status = 'sent' ORDER BY version LIMIT 1"},
      // The tenant's keys are the range [tenant + ':', tenant + ';'): ';' follows ':'.
      {&s.folded, std::string("SELECT ") + kOutboxColumns +
                      " FROM outbox INDEXED BY outbox_folded WHERE channel = ?1 AND"
                      " key >= ?2 AND key < ?3 AND status = 'folded' AND created_at >= ?4 AND"
                      " created_at < ?5 ORDER BY created_at, key"},
      {&s.insert_notice, std::string("INSERT INTO outbox (") + kOutboxColumns +
                             ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING"},
      // Dead rows are few (an operator retries or drops them): the status prefix of
      // outbox_due finds them.
      {&s.dead_rows, std::string("SELECT ") + kOutboxColumns +
                         " FROM outbox WHERE status = 'dead' AND updated_at >= ?1 AND"
                         " updated_at < ?2 ORDER BY updated_at, key, channel"},
      {&s.waiting_groups, kWaitingGroupsSql},
      {&s.group_waiting, kGroupWaitingSql},
      {&s.group_state, kGroupStateSql},
      {&s.group_mark, kGroupMarkSql},
      {&s.group_taken, kGroupTakenSql},
      {&s.group_upsert, kGroupUpsertSql},
      {&s.group_open_keys, kGroupOpenKeysSql},
      {&s.cancel_tier_row, kCancelTierRowSql},
      {&s.group_members, std::string("SELECT ") + kOutboxColumns +
                             " FROM outbox INDEXED BY outbox_members WHERE group_row = ?1"
                             " ORDER BY created_at, key"},
  };
  for (const auto& [stmt, text] : sql) {
    if (auto status = stmt->Prepare(db_, text, path_); !status) return status;
  }
  return {};
}

core::Result<std::vector<core::OutboxRow>> SqliteIncidentStore::ClaimDue(std::string_view owner,
                                                                         core::WallTime now,
                                                                         core::Duration lease,
                                                                         size_t limit) {
  if (limit == 0) return std::vector<core::OutboxRow>{};
  Stmt& s = outbox_->claim;
  s.BindText(1, owner);
  s.BindInt(2, store::ToMicros(now));
  s.BindInt(3, store::ToMicros(now + lease));
  s.BindUint(4, limit);
  std::vector<core::OutboxRow> out;
  for (;;) {
    auto step = s.Step();
    if (!step) return step.error();
    if (!*step) break;
    auto parsed = ReadOutboxRow(s);
    if (!parsed) {
      s.Reset();
      return parsed.error();
    }
    parsed->claims = static_cast<uint32_t>(s.Uint(kOutboxColumnCount));
    parsed->throttled_since = s.Time(kOutboxColumnCount + 1);
    parsed->tier = static_cast<uint32_t>(s.Uint(kOutboxColumnCount + 2));
    out.push_back(std::move(*parsed));
  }
  s.Reset();
  // RETURNING yields rows in no particular order.
  std::sort(out.begin(), out.end(), [](const core::OutboxRow& a, const core::OutboxRow& b) {
    return std::tie(a.key, a.channel, a.generation, a.version) <
           std::tie(b.key, b.channel, b.generation, b.version);
  });
  return out;
}

core::Result<std::vector<Status>> SqliteIncidentStore::RecordOutcomes(
    std::string_view owner, std::span<const core::OutboxOutcome> outcomes, core::WallTime now) {
  OutboxStatements& s = *outbox_;
  std::vector<Status> statuses;
  statuses.reserve(outcomes.size());
  if (outcomes.empty()) return statuses;
  const int64_t now_us = store::ToMicros(now);
  const size_t n = outcomes.size();
  // A key named twice applies once, the first time, as when each outcome was its own statement.
  std::vector<size_t>& by_key = s.by_key;
  by_key.resize(n);
  for (size_t i = 0; i < n; ++i) by_key[i] = i;
  std::sort(by_key.begin(), by_key.end(), [&](size_t x, size_t y) {
    return std::tie(outcomes[x].idempotency_key, x) < std::tie(outcomes[y].idempotency_key, y);
  });
  std::vector<AppliedOutcome>& applied = s.applied;
  applied.assign(n, AppliedOutcome{});
  s.rows.clear();
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || outcomes[by_key[i]].idempotency_key != outcomes[by_key[i - 1]].idempotency_key) {
      s.rows.push_back(by_key[i]);
    }
  }
  std::sort(s.rows.begin(), s.rows.end());
  const auto index_of = [&](std::string_view key) {
    const auto it = std::lower_bound(by_key.begin(), by_key.end(), key, [&](size_t x, auto k) {
      return outcomes[x].idempotency_key < k;
    });
    return it != by_key.end() && outcomes[*it].idempotency_key == key ? *it : n;
  };
  s.arena.clear();

  if (auto status = s.begin.Run(); !status) return status.error();
  auto fail = [&s](core::Error error) -> core::Result<std::vector<Status>> {
    (void)s.rollback.Run();
    return error;
  };
  // The outcomes, a statement per chunk of rows; the rows it changed say what they were.
  for (size_t done = 0; done < s.rows.size();) {
    size_t chunk = 0;
    auto stmt = s.outcomes.For(s.rows.size() - done, db_, path_, &chunk);
    if (!stmt) return fail(stmt.error());
    Stmt& u = **stmt;
    u.BindText(1, owner);
    u.BindInt(2, now_us);
    for (size_t r = 0; r < chunk; ++r) {
      const core::OutboxOutcome& o = outcomes[s.rows[done + r]];
      const int p = static_cast<int>(3 + 7 * r);
      u.BindText(p, o.idempotency_key);
      u.BindText(p + 1, store::OutcomeStatus(o.kind));
      u.BindText(p + 2, o.remote_message_id);
      u.BindText(p + 3, o.error);
      u.BindInt(p + 4, store::ToMicros(o.next_attempt_at));
      u.BindInt(p + 5, store::CountedAttempt(o));
      u.BindInt(p + 6, store::ThrottleMark(o));
    }
    for (;;) {
      auto row = u.Step();
      if (!row) return fail(row.error());
      if (!*row) break;
      const size_t i = index_of(u.TextView(0));
      if (i == n) continue;
      AppliedOutcome& a = applied[i];
      a.applied = true;
      a.key_at = s.arena.size();
      a.key_size = u.TextView(1).size();
      a.channel_size = u.TextView(2).size();
      s.arena.append(u.TextView(1));
      s.arena.append(u.TextView(2));
      a.generation = u.Int(3);
      a.version = u.Int(4);
      a.claims = u.Int(5);
    }
    u.Reset();
    done += chunk;
  }
  const std::string_view arena = s.arena;
  const auto key_of = [&](const AppliedOutcome& a) { return arena.substr(a.key_at, a.key_size); };
  const auto channel_of = [&](const AppliedOutcome& a) {
    return arena.substr(a.key_at + a.key_size, a.channel_size);
  };

  // Then their attempts, in the order the outcomes came.
  s.rows.clear();
  for (size_t i = 0; i < n; ++i) {
    if (applied[i].applied) s.rows.push_back(i);
  }
  for (size_t done = 0; done < s.rows.size();) {
    size_t chunk = 0;
    auto stmt = s.attempts.For(s.rows.size() - done, db_, path_, &chunk);
    if (!stmt) return fail(stmt.error());
    Stmt& a = **stmt;
    a.BindInt(1, now_us);
    for (size_t r = 0; r < chunk; ++r) {
      const size_t i = s.rows[done + r];
      const core::OutboxOutcome& o = outcomes[i];
      const int p = static_cast<int>(2 + 7 * r);
      a.BindText(p, o.idempotency_key);
      a.BindInt(p + 1, applied[i].claims);
      a.BindText(p + 2, key_of(applied[i]));
      a.BindText(p + 3, channel_of(applied[i]));
      a.BindInt(p + 4, applied[i].generation);
      a.BindText(p + 5, store::AttemptOutcome(o));
      a.BindText(p + 6, store::AttemptDetail(o));
    }
    if (auto status = a.Run(); !status) return fail(status.error());
    done += chunk;
  }
  for (const size_t i : s.rows) {
    const core::OutboxOutcome& o = outcomes[i];
    if (o.kind == core::OutboxOutcome::Kind::kDead && o.notice) {
      if (auto status = InsertNotice(s.insert_notice, *o.notice); !status) {
        return fail(status.error());
      }
    }
  }
  // A sent row supersedes its older pending siblings.
  std::erase_if(s.rows,
                [&](size_t i) { return outcomes[i].kind != core::OutboxOutcome::Kind::kSent; });
  for (size_t done = 0; done < s.rows.size();) {
    size_t chunk = 0;
    auto stmt = s.supersede.For(s.rows.size() - done, db_, path_, &chunk);
    if (!stmt) return fail(stmt.error());
    Stmt& x = **stmt;
    x.BindInt(1, now_us);
    for (size_t r = 0; r < chunk; ++r) {
      const AppliedOutcome& a = applied[s.rows[done + r]];
      const int p = static_cast<int>(2 + 4 * r);
      x.BindText(p, key_of(a));
      x.BindText(p + 1, channel_of(a));
      x.BindInt(p + 2, a.generation);
      x.BindInt(p + 3, a.version);
    }
    if (auto status = x.Run(); !status) return fail(status.error());
    done += chunk;
  }
  if (auto status = s.commit.Run(); !status) return fail(status.error());
  for (size_t i = 0; i < n; ++i) {
    if (applied[i].applied) {
      statuses.emplace_back();
    } else {
      statuses.emplace_back(
          MakeError(ErrorCode::kConflict, "the lease on outbox row " + outcomes[i].idempotency_key +
                                              " is no longer held by " + std::string(owner)));
    }
  }
  return statuses;
}

core::Result<std::vector<std::string>> SqliteIncidentStore::CancelUnwantedTierRows(
    std::string_view owner, std::span<const core::OutboxRow> claimed, core::WallTime now) {
  OutboxStatements& s = *outbox_;
  std::vector<std::string> cancelled;
  if (auto status = s.begin.Run(); !status) return status.error();
  for (const core::OutboxRow& row : claimed) {
    if (row.tier == 0) continue;
    Stmt& u = s.cancel_tier_row;
    u.BindText(1, row.idempotency_key);
    u.BindText(2, owner);
    u.BindInt(3, store::ToMicros(now));
    auto step = u.Step();
    if (!step) {
      (void)s.rollback.Run();
      return step.error();
    }
    if (*step) cancelled.push_back(u.Text(0));
    u.Reset();
  }
  if (auto status = s.commit.Run(); !status) {
    (void)s.rollback.Run();
    return status.error();
  }
  return cancelled;
}

core::Result<std::vector<core::WallTime>> SqliteIncidentStore::SentTimes(std::string_view channel,
                                                                         core::WallTime since) {
  Stmt& s = outbox_->sent_times;
  s.BindText(1, channel);
  s.BindInt(2, store::ToMicros(since));
  std::vector<core::WallTime> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(store::FromMicros(s.Int(0)));
  }
  s.Reset();
  return out;
}

core::Result<std::vector<core::OutboxRow>> SqliteIncidentStore::FoldedRows(std::string_view channel,
                                                                           std::string_view tenant,
                                                                           core::WallTime start,
                                                                           core::WallTime end) {
  Stmt& s = outbox_->folded;
  // Bound text is not copied: the bounds must live until the statement is reset.
  const std::string from = std::string(tenant) + ":";
  const std::string to = std::string(tenant) + ";";
  s.BindText(1, channel);
  s.BindText(2, from);
  s.BindText(3, to);
  s.BindInt(4, store::ToMicros(start));
  s.BindInt(5, store::ToMicros(end));
  return ReadOutboxRows(s);
}

core::Result<std::vector<core::OutboxRow>> SqliteIncidentStore::DeadRows(core::WallTime start,
                                                                         core::WallTime end) {
  Stmt& s = outbox_->dead_rows;
  s.BindInt(1, store::ToMicros(start));
  s.BindInt(2, store::ToMicros(end));
  return ReadOutboxRows(s);
}

core::Result<uint64_t> SqliteIncidentStore::TrimOutbox(core::WallTime cutoff, size_t limit) {
  if (limit == 0) return uint64_t{0};
  Stmt& s = outbox_->trim;
  s.BindInt(1, store::ToMicros(cutoff));
  s.BindUint(2, limit);
  if (auto status = s.Run(); !status) return status.error();
  return static_cast<uint64_t>(sqlite3_changes(db_));
}

core::Result<std::vector<core::WaitingGroup>> SqliteIncidentStore::WaitingGroups() {
  Stmt& s = outbox_->waiting_groups;
  std::vector<core::WaitingGroup> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(core::WaitingGroup{.channel = s.Text(0),
                                     .group_key = s.Text(1),
                                     .first_waiting = store::FromMicros(s.Int(2)),
                                     .last_message_at = s.Time(3)});
  }
  s.Reset();
  return out;
}

namespace {

// The members `s` (kGroupWaitingSql or kGroupTakenSql) yields, and, when `first_ready` is
// given, the ready time of the first (kGroupWaitingSql lists the earliest first).
core::Status ReadGroupMembers(Stmt& s, std::vector<core::GroupMemberFact>& out,
                              std::optional<core::WallTime>* first_ready) {
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    auto transition = core::ParseTransitionName(s.Text(3));
    if (!transition) {
      s.Reset();
      return transition.error();
    }
    out.push_back(core::GroupMemberFact{.key = s.Text(0),
                                        .generation = s.Uint(1),
                                        .version = s.Uint(2),
                                        .transition = *transition});
    if (first_ready != nullptr && !*first_ready) *first_ready = store::FromMicros(s.Int(4));
  }
  s.Reset();
  return {};
}

}  // namespace

core::Result<std::optional<core::OutboxRow>> SqliteIncidentStore::AssembleGroup(
    std::string_view channel, std::string_view group_key, core::WallTime now,
    const core::GroupPlanner& plan) {
  OutboxStatements& s = *outbox_;
  using Assembled = core::Result<std::optional<core::OutboxRow>>;
  // BEGIN IMMEDIATE: one writer at a time, so the facts the plan decides on stay true until
  // the commit, and the members read are the members marked.
  if (auto status = s.begin.Run(); !status) return status.error();
  auto fail = [&s](core::Error error) -> Assembled {
    (void)s.rollback.Run();
    return error;
  };
  auto nothing = [&s]() -> Assembled {
    if (auto status = s.rollback.Run(); !status) return status.error();
    return std::optional<core::OutboxRow>{};
  };
  core::GroupFacts facts{.channel = std::string(channel),
                         .group_key = std::string(group_key),
                         .at = now,
                         .ready = {},
                         .first_waiting = {},
                         .taken = {},
                         .state = std::nullopt};
  const int64_t now_us = store::ToMicros(now);
  {
    Stmt& w = s.group_waiting;
    w.BindText(1, channel);
    w.BindText(2, group_key);
    w.BindInt(3, now_us);
    std::optional<core::WallTime> first;
    if (auto status = ReadGroupMembers(w, facts.ready, &first); !status) {
      return fail(status.error());
    }
    if (!first) return nothing();
    facts.first_waiting = *first;
  }
  {
    Stmt& g = s.group_state;
    g.BindText(1, channel);
    g.BindText(2, group_key);
    auto row = g.Step();
    if (!row) return fail(row.error());
    if (*row) {
      facts.state = core::GroupState{.last_sequence = g.Uint(0),
                                     .last_message_at = store::FromMicros(g.Int(1)),
                                     .episode = std::nullopt};
      if (!g.IsNull(2)) facts.state->episode = g.Uint(2);  // NULL: kept before episodes were
    }
    g.Reset();
  }
  {
    Stmt& t = s.group_taken;
    t.BindText(1, channel);
    t.BindText(2, group_key);
    if (auto status = ReadGroupMembers(t, facts.taken, nullptr); !status) {
      return fail(status.error());
    }
  }
  std::optional<core::GroupMessage> message = plan(facts);
  if (!message) return nothing();
  core::OutboxRow& group = message->row;
  if (auto status = InsertNotice(s.insert_notice, group); !status) return fail(status.error());
  if (sqlite3_changes(db_) == 0) return nothing();  // built already: its key exists
  {
    Stmt& m = s.group_mark;
    m.BindText(1, channel);
    m.BindText(2, group_key);
    m.BindText(3, group.idempotency_key);
    m.BindInt(4, now_us);
    if (auto status = m.Run(); !status) return fail(status.error());
  }
  {
    const core::GroupState& after = message->state_after;
    Stmt& u = s.group_upsert;
    u.BindText(1, channel);
    u.BindText(2, group_key);
    u.BindUint(3, after.last_sequence);
    u.BindInt(4, store::ToMicros(after.last_message_at));
    if (after.episode) u.BindUint(5, *after.episode);  // else NULL, as Reset left it
    if (auto status = u.Run(); !status) return fail(status.error());
  }
  if (auto status = s.commit.Run(); !status) return fail(status.error());
  return std::optional<core::OutboxRow>(std::move(group));
}

core::Result<std::vector<core::OutboxRow>> SqliteIncidentStore::GroupMembers(
    std::string_view group_row) {
  Stmt& s = outbox_->group_members;
  s.BindText(1, group_row);
  auto members = ReadOutboxRows(s);
  if (members) core::SortWaitingMembers(*members);
  return members;
}

core::Result<core::GroupStanding> SqliteIncidentStore::GroupStandingAt(std::string_view channel,
                                                                       std::string_view group_key,
                                                                       core::WallTime at) {
  Stmt& s = outbox_->group_open_keys;
  s.BindText(1, channel);
  s.BindText(2, group_key);
  std::vector<std::string> open;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    open.push_back(s.Text(0));
  }
  s.Reset();
  auto silences = ReadSilences(db_, path_, at);
  if (!silences) return silences.error();
  return core::StandingOf(open, *silences, at);
}

core::Result<std::string> SqliteIncidentStore::ThreadRemoteId(std::string_view key,
                                                              uint64_t generation,
                                                              std::string_view channel) {
  Stmt& s = outbox_->thread;
  s.BindText(1, key);
  s.BindUint(2, generation);
  s.BindText(3, channel);
  auto row = s.Step();
  if (!row) return row.error();
  std::string out = *row ? s.Text(0) : std::string();
  s.Reset();
  return out;
}

}  // namespace quell::sqlite
