// PgIncidentStore's OperatorStore side: silences, dead outbox rows and one key's history.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "quell/adapters/postgres/pg_connection.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/store_common/incident_codec.h"
#include "quell/adapters/store_common/outbox_common.h"
#include "quell/adapters/store_common/silence_codec.h"

namespace quell::postgres {
namespace {

using core::ErrorCode;
using core::MakeError;
using core::Status;

// A dead row goes back to pending (with fresh attempts and throttle budget), or to superseded when
// a newer row of its incident and channel was sent already (the claim would never take it). One
// statement, so atomic.
#define QUELL_RETRY_SET                                                           \
  "UPDATE outbox o SET status = CASE WHEN EXISTS (SELECT 1 FROM outbox n WHERE"   \
  " n.key = o.key AND n.channel = o.channel AND n.status = 'sent' AND"            \
  " (n.generation > o.generation OR (n.generation = o.generation AND"             \
  " n.version > o.version))) THEN 'superseded' ELSE 'pending' END, attempts = 0," \
  " throttled_since = NULL, next_attempt_at = $2, lease_owner = '',"              \
  " lease_expires_at = NULL, updated_at = $2"
constexpr const char* kRetrySql =
    QUELL_RETRY_SET " WHERE o.idempotency_key = $1 AND o.status = 'dead' RETURNING o.status";
// Every dead row, or those of channel $1 when it is not empty, in one statement.
constexpr const char* kRetryAllSql =
    QUELL_RETRY_SET " WHERE o.status = 'dead' AND ($1 = '' OR o.channel = $1) RETURNING o.status";
#undef QUELL_RETRY_SET

// Why an operator's change to `key` did nothing: no such row, or not dead.
core::Error NotDead(Connection& c, std::string_view key) {
  auto result = c.Run(std::string("SELECT status FROM outbox WHERE idempotency_key = $1"),
                      {std::string(key)});
  if (!result) return result.error();
  if (PQntuples(result->get()) == 0) return store::NotDeadError(key, std::nullopt);
  return store::NotDeadError(key, TextAt(result->get(), 0, 0));
}

}  // namespace

core::Result<std::vector<core::Silence>> ReadSilences(Connection& c,
                                                      std::optional<core::WallTime> active_at) {
  std::string sql =
      "SELECT id, pattern, expires_at, reason, created_by, created_at, match_kind FROM silences";
  std::vector<std::string> params;
  if (active_at) {
    sql += " WHERE expires_at > $1";
    params.push_back(std::to_string(store::ToMicros(*active_at)));
  }
  sql += " ORDER BY id";
  auto result = c.Run(sql, params);
  if (!result) return result.error();
  const PGresult* r = result->get();
  std::vector<core::Silence> out;
  for (int i = 0; i < PQntuples(r); ++i) {
    core::Silence silence;
    silence.id = UintAt(r, i, 0);
    silence.pattern = TextAt(r, i, 1);
    silence.expires_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 2)));
    silence.reason = TextAt(r, i, 3);
    silence.created_by = TextAt(r, i, 4);
    silence.created_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 5)));
    auto match = store::SilenceMatchFromColumn(silence.id, TextAt(r, i, 6));
    if (!match) return match.error();
    silence.match = *match;
    out.push_back(std::move(silence));
  }
  return out;
}

core::Result<uint64_t> PgIncidentStore::AddSilence(const core::Silence& silence) {
  auto result = connection_->Run(
      std::string("INSERT INTO silences (pattern, expires_at, reason, created_by, created_at,"
                  " match_kind) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id"),
      {silence.pattern, std::to_string(store::ToMicros(silence.expires_at)), silence.reason,
       silence.created_by, std::to_string(store::ToMicros(silence.created_at)),
       std::string(core::SilenceMatchName(silence.match))});
  if (!result) return result.error();
  if (PQntuples(result->get()) != 1) {
    return MakeError(ErrorCode::kInternal, "silence insert returned no id");
  }
  return UintAt(result->get(), 0, 0);
}

core::Result<std::vector<core::Silence>> PgIncidentStore::ListSilences(
    std::optional<core::WallTime> active_at) {
  return ReadSilences(*connection_, active_at);
}

Status PgIncidentStore::RemoveSilence(uint64_t id) {
  auto result =
      connection_->Run(std::string("DELETE FROM silences WHERE id = $1"), {std::to_string(id)});
  if (!result) return result.error();
  if (Affected(result->get()) != 1) {
    return MakeError(ErrorCode::kNotFound, "no silence " + std::to_string(id));
  }
  return {};
}

core::Result<core::OutboxStatus> PgIncidentStore::RetryDead(std::string_view idempotency_key,
                                                            core::WallTime now) {
  auto result = connection_->Run(
      std::string(kRetrySql), {std::string(idempotency_key), std::to_string(store::ToMicros(now))});
  if (!result) return result.error();
  if (PQntuples(result->get()) == 0) return NotDead(*connection_, idempotency_key);
  return core::ParseOutboxStatus(TextAt(result->get(), 0, 0));
}

core::Result<core::OperatorStore::RetriedRows> PgIncidentStore::RetryAllDead(
    std::optional<std::string_view> channel, core::WallTime now) {
  auto result = connection_->Run(std::string(kRetryAllSql), {std::string(channel.value_or("")),
                                                             std::to_string(store::ToMicros(now))});
  if (!result) return result.error();
  RetriedRows out;
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    ++(TextAt(result->get(), i, 0) == "pending" ? out.pending : out.superseded);
  }
  return out;
}

Status PgIncidentStore::DropDead(std::string_view idempotency_key, core::WallTime now) {
  auto result =
      connection_->Run(std::string("UPDATE outbox SET status = 'dropped', updated_at = $2"
                                   " WHERE idempotency_key = $1 AND status = 'dead'"),
                       {std::string(idempotency_key), std::to_string(store::ToMicros(now))});
  if (!result) return result.error();
  if (Affected(result->get()) != 1) return NotDead(*connection_, idempotency_key);
  return {};
}

core::Result<std::vector<core::ChannelUse>> PgIncidentStore::GenerationChannels(
    std::string_view key, uint64_t generation) {
  auto result = connection_->Run(
      std::string("SELECT channel, bool_and(status = 'shadow') FROM outbox WHERE key = $1 AND"
                  " generation = $2 GROUP BY channel ORDER BY channel COLLATE \"C\""),
      {std::string(key), std::to_string(generation)});
  if (!result) return result.error();
  const int rows = PQntuples(result->get());
  std::vector<core::ChannelUse> out;
  out.reserve(static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) {
    out.push_back(
        core::ChannelUse{TextAt(result->get(), i, 0), PQgetvalue(result->get(), i, 1)[0] == 't'});
  }
  return out;
}

namespace {

core::Result<std::vector<core::IncidentGeneration>> ReadGenerations(core::Result<PgResult> result) {
  if (!result) return result.error();
  const int rows = PQntuples(result->get());
  std::vector<core::IncidentGeneration> out;
  out.reserve(static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) {
    out.push_back(
        core::IncidentGeneration{TextAt(result->get(), i, 0), UintAt(result->get(), i, 1)});
  }
  return out;
}

// A carried member: a grouped row a message took (group_row set), of its incident's open
// generation.
constexpr const char* kOpenMemberSql =
    "SELECT m.key, m.generation FROM outbox m JOIN incidents i ON i.key = m.key AND"
    " i.generation = m.generation AND i.status = 'open' WHERE m.status = 'grouped' AND"
    " m.group_row IS NOT NULL AND ";
// One line per generation, in byte order of the key (as SQLite's ORDER BY).
constexpr const char* kOpenMemberOrderSql =
    " GROUP BY m.key, m.generation ORDER BY m.key COLLATE \"C\"";

}  // namespace

core::Result<std::vector<core::IncidentGeneration>> PgIncidentStore::OpenMembersOfMessage(
    std::string_view group_row) {
  static const std::string sql =
      std::string(kOpenMemberSql) + "m.group_row = $1 COLLATE \"C\"" + kOpenMemberOrderSql;
  return ReadGenerations(connection_->Run(sql, {std::string(group_row)}));
}

core::Result<std::vector<core::IncidentGeneration>> PgIncidentStore::OpenMembersOfGroup(
    std::string_view channel, std::string_view group_key, std::optional<uint64_t> episode,
    core::WallTime carried_by) {
  // Without a channel (a key sent before episodes were kept) every channel's group. An empty
  // $4 stands for no episode.
  static const std::string sql =
      std::string(kOpenMemberSql) +
      "($1 = '' OR m.channel = $1 COLLATE \"C\") AND m.group_key = $2 COLLATE \"C\" AND "
      "m.updated_at <= $3 AND ($4 = '' OR"
      " EXISTS (SELECT 1 FROM outbox_groups g WHERE g.channel = $1 AND g.group_key = $2 AND"
      " g.episode = NULLIF($4, '')::bigint))" +
      kOpenMemberOrderSql;
  return ReadGenerations(connection_->Run(
      sql,
      {std::string(channel), std::string(group_key), std::to_string(store::ToMicros(carried_by)),
       episode ? std::to_string(*episode) : std::string()}));
}

core::Result<std::vector<core::IncidentGeneration>> PgIncidentStore::GroupMemberKeys(
    std::string_view channel, std::string_view group_key, size_t limit) {
  // The predicate is outbox_group_keys', so the partial index serves it; its columns are in
  // "C", and only a comparison in the same collation can use them (here and below).
  static const std::string sql =
      "SELECT key, MAX(generation) FROM outbox WHERE channel = $1 COLLATE \"C\" AND group_key ="
      " $2 COLLATE \"C\" AND"
      " status = 'grouped' AND group_row IS NOT NULL GROUP BY key ORDER BY key COLLATE \"C\""
      " LIMIT $3";
  return ReadGenerations(
      connection_->Run(sql, {std::string(channel), std::string(group_key), std::to_string(limit)}));
}

core::Result<std::vector<core::LoggedDecision>> PgIncidentStore::RecentDecisions(
    std::string_view key, size_t limit) {
  auto result = connection_->Run(
      std::string("SELECT generation, version, poll_id, at, decision, reason FROM decisions"
                  " WHERE key = $1 ORDER BY version DESC LIMIT $2"),
      {std::string(key), std::to_string(limit)});
  if (!result) return result.error();
  const PGresult* r = result->get();
  const int rows = PQntuples(r);
  std::vector<core::LoggedDecision> out;
  out.reserve(static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) {
    out.push_back(core::LoggedDecision{.generation = UintAt(r, i, 0),
                                       .version = UintAt(r, i, 1),
                                       .poll_id = TextAt(r, i, 2),
                                       .at = store::FromMicros(ParseInt(PQgetvalue(r, i, 3))),
                                       .decision = TextAt(r, i, 4),
                                       .reason = TextAt(r, i, 5)});
  }
  return out;
}

core::Result<std::vector<core::OutboxRow>> PgIncidentStore::RecentOutbox(std::string_view key,
                                                                         size_t limit) {
  auto result = connection_->Run(std::string("SELECT ") + kOutboxColumns +
                                     ", coalesce(group_key, ''), coalesce(group_row, '') FROM"
                                     " outbox WHERE key = $1 ORDER BY generation DESC,"
                                     " version DESC, channel COLLATE \"C\" LIMIT $2",
                                 {std::string(key), std::to_string(limit)});
  if (!result) return result.error();
  std::vector<core::OutboxRow> out;
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    auto row = ReadOutboxRow(result->get(), i);
    if (!row) return row.error();
    row->group_key = TextAt(result->get(), i, kOutboxColumnCount);
    row->group_row = TextAt(result->get(), i, kOutboxColumnCount + 1);
    out.push_back(std::move(*row));
  }
  return out;
}

core::Result<std::vector<core::OutboxRow>> PgIncidentStore::GroupMessagesOf(std::string_view key,
                                                                            size_t limit) {
  // kOutboxColumns with an empty payload: a group message's holds every member's snapshot.
  auto result = connection_->Run(
      "SELECT idempotency_key, key, generation, version, transition, channel, '', status,"
      " attempts, next_attempt_at, lease_owner, lease_expires_at, last_error, remote_message_id,"
      " created_at, updated_at, kind FROM outbox WHERE idempotency_key IN (SELECT group_row FROM"
      " outbox WHERE key = $1 AND group_row IS NOT NULL) ORDER BY created_at DESC,"
      " idempotency_key COLLATE \"C\" DESC LIMIT $2",
      {std::string(key), std::to_string(limit)});
  if (!result) return result.error();
  std::vector<core::OutboxRow> out;
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    auto row = ReadOutboxRow(result->get(), i);
    if (!row) return row.error();
    out.push_back(std::move(*row));
  }
  return out;
}

namespace {

// The newest $2 of each list of key $1, read newest first (each through the key's index) and
// handed back oldest first. A generation is every one > 0 the decision log or the outbox names.
constexpr const char* kTimelineDecisionsSql =
    "SELECT generation, version, poll_id, at, decision, reason FROM decisions WHERE key = $1"
    " ORDER BY version DESC LIMIT $2";
constexpr const char* kTimelineMarksSql =
    "SELECT poll_id, at, generation, health, decision FROM observation_marks WHERE key = $1"
    " ORDER BY at DESC, poll_id COLLATE \"C\" DESC LIMIT $2";
constexpr const char* kTimelineAttemptsSql =
    "SELECT a.idempotency_key, a.attempt, a.channel, a.generation,"
    " coalesce(o.transition, ''), a.at, a.outcome, a.detail FROM delivery_attempts a"
    " LEFT JOIN outbox o ON o.idempotency_key = a.idempotency_key WHERE a.key = $1"
    " ORDER BY a.at DESC, a.idempotency_key COLLATE \"C\" DESC, a.attempt DESC LIMIT $2";
constexpr const char* kTimelineGenerationsSql =
    "SELECT generation, min(CASE WHEN decision = 'notify' THEN at END),"
    " max(CASE WHEN decision = 'resolve' THEN at END) FROM (SELECT generation, decision, at"
    " FROM decisions WHERE key = $1 AND generation > 0 UNION ALL SELECT DISTINCT generation,"
    " '', NULL::bigint FROM outbox WHERE key = $1 AND generation > 0) AS g GROUP BY generation"
    " ORDER BY generation DESC LIMIT $2";

// Runs `sql` with (key, limit) and appends what `read` makes of each row, oldest first.
template <typename T, typename Read>
core::Status ReadNewest(Connection& c, const char* sql, std::string_view key, size_t limit,
                        std::vector<T>& out, const Read& read) {
  auto result = c.Run(std::string(sql), {std::string(key), std::to_string(limit)});
  if (!result) return result.error();
  const PGresult* r = result->get();
  for (int i = PQntuples(r) - 1; i >= 0; --i) out.push_back(read(r, i));
  return {};
}

core::Status ReadTimelineLists(Connection& c, std::string_view key, size_t limit,
                               core::StoredTimeline& out) {
  if (auto status = ReadNewest(c, kTimelineDecisionsSql, key, limit, out.decisions,
                               [](const PGresult* r, int i) {
                                 return core::LoggedDecision{
                                     .generation = UintAt(r, i, 0),
                                     .version = UintAt(r, i, 1),
                                     .poll_id = TextAt(r, i, 2),
                                     .at = store::FromMicros(ParseInt(PQgetvalue(r, i, 3))),
                                     .decision = TextAt(r, i, 4),
                                     .reason = TextAt(r, i, 5)};
                               });
      !status) {
    return status;
  }
  if (auto status = ReadNewest(c, kTimelineMarksSql, key, limit, out.marks,
                               [](const PGresult* r, int i) {
                                 return core::LoggedMark{
                                     .poll_id = TextAt(r, i, 0),
                                     .at = store::FromMicros(ParseInt(PQgetvalue(r, i, 1))),
                                     .generation = UintAt(r, i, 2),
                                     .health = TextAt(r, i, 3),
                                     .decision = TextAt(r, i, 4)};
                               });
      !status) {
    return status;
  }
  if (auto status = ReadNewest(c, kTimelineAttemptsSql, key, limit, out.attempts,
                               [](const PGresult* r, int i) {
                                 return core::LoggedAttempt{
                                     .idempotency_key = TextAt(r, i, 0),
                                     .attempt = UintAt(r, i, 1),
                                     .channel = TextAt(r, i, 2),
                                     .generation = UintAt(r, i, 3),
                                     .transition = TextAt(r, i, 4),
                                     .at = store::FromMicros(ParseInt(PQgetvalue(r, i, 5))),
                                     .outcome = TextAt(r, i, 6),
                                     .detail = TextAt(r, i, 7)};
                               });
      !status) {
    return status;
  }
  return ReadNewest(c, kTimelineGenerationsSql, key, limit, out.generations,
                    [](const PGresult* r, int i) {
                      return core::GenerationSpan{.generation = UintAt(r, i, 0),
                                                  .opened_at = TimeAt(r, i, 1),
                                                  .resolved_at = TimeAt(r, i, 2)};
                    });
}

constexpr const char* kWindowColumns =
    "id, name, keys, labels, starts_at, ends_at, reason, created_by, created_at";

core::Result<core::OneOffWindow> ReadWindow(const PGresult* r, int i) {
  core::OneOffWindow w;
  w.id = UintAt(r, i, 0);
  w.name = TextAt(r, i, 1);
  w.keys = TextAt(r, i, 2);
  auto labels = store::DecodeLabels(TextAt(r, i, 3));
  if (!labels) return labels.error();
  w.labels = std::move(*labels);
  w.starts_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 4)));
  w.ends_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 5)));
  w.reason = TextAt(r, i, 6);
  w.created_by = TextAt(r, i, 7);
  w.created_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 8)));
  return w;
}

}  // namespace

core::Result<core::StoredTimeline> PgIncidentStore::ReadTimeline(std::string_view key,
                                                                 size_t limit) {
  Connection& c = *connection_;
  // One snapshot for the four lists.
  if (auto begun = c.Run("BEGIN"); !begun) return begun.error();
  core::StoredTimeline out;
  core::Status status = [&]() -> core::Status {
    if (auto set = c.Run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"); !set) {
      return set.error();
    }
    return ReadTimelineLists(c, key, limit, out);
  }();
  if (!status) {
    (void)c.Run("ROLLBACK");
    return status.error();
  }
  if (auto committed = c.Run("COMMIT"); !committed) return committed.error();
  return out;
}

core::Result<uint64_t> PgIncidentStore::AddOneOffWindow(const core::OneOffWindow& window) {
  auto result = connection_->Run(
      std::string("INSERT INTO maintenance_windows (name, keys, labels, starts_at, ends_at,"
                  " reason, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                  " RETURNING id"),
      {window.name, window.keys, store::EncodeLabels(window.labels),
       std::to_string(store::ToMicros(window.starts_at)),
       std::to_string(store::ToMicros(window.ends_at)), window.reason, window.created_by,
       std::to_string(store::ToMicros(window.created_at))});
  if (!result) return result.error();
  return UintAt(result->get(), 0, 0);
}

core::Result<std::vector<core::OneOffWindow>> PgIncidentStore::ListOneOffWindows(
    core::WallTime ends_after) {
  auto result = connection_->Run(std::string("SELECT ") + kWindowColumns +
                                     " FROM maintenance_windows WHERE ends_at > $1"
                                     " ORDER BY starts_at DESC, id DESC",
                                 {std::to_string(store::ToMicros(ends_after))});
  if (!result) return result.error();
  std::vector<core::OneOffWindow> out;
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    auto window = ReadWindow(result->get(), i);
    if (!window) return window.error();
    out.push_back(std::move(*window));
  }
  return out;
}

core::Result<core::OneOffWindow> PgIncidentStore::ExpireOneOffWindow(uint64_t id,
                                                                     core::WallTime now) {
  auto result = connection_->Run(
      std::string("UPDATE maintenance_windows SET ends_at = $2 WHERE id = $1 AND ends_at > $2"
                  " RETURNING ") +
          kWindowColumns,
      {std::to_string(id), std::to_string(store::ToMicros(now))});
  if (!result) return result.error();
  if (PQntuples(result->get()) == 1) return ReadWindow(result->get(), 0);
  auto exists = connection_->Run(std::string("SELECT 1 FROM maintenance_windows WHERE id = $1"),
                                 {std::to_string(id)});
  if (!exists) return exists.error();
  if (PQntuples(exists->get()) == 0) {
    return MakeError(ErrorCode::kNotFound, "no maintenance window " + std::to_string(id));
  }
  return MakeError(ErrorCode::kConflict,
                   "maintenance window " + std::to_string(id) + " has ended already");
}

}  // namespace quell::postgres
