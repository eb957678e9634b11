// SqliteIncidentStore's OperatorStore side: silences, dead outbox rows and one key's history. These
// run seldom, so each prepares its statement when called instead of keeping it prepared.
#include <algorithm>
#include <utility>
#include <vector>

#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/adapters/sqlite/sqlite_statement.h"
#include "quell/adapters/store_common/incident_page_sql.h"
#include "quell/adapters/store_common/outbox_common.h"
#include "quell/adapters/store_common/silence_codec.h"

namespace quell::sqlite {
namespace {

using core::ErrorCode;
using core::MakeError;
using core::Status;

// One statement: a dead row goes back to pending (with fresh attempts and throttle budget), or to
// superseded when a newer row of its incident and channel was sent already (the claim would never
// take it).
#define QUELL_RETRY_SET                                                                \
  "UPDATE outbox SET status = CASE WHEN EXISTS (SELECT 1 FROM outbox n WHERE"          \
  " n.key = outbox.key AND n.channel = outbox.channel AND n.status = 'sent' AND"       \
  " (n.generation > outbox.generation OR (n.generation = outbox.generation AND"        \
  " n.version > outbox.version))) THEN 'superseded' ELSE 'pending' END, attempts = 0," \
  " throttled_since = NULL, next_attempt_at = ?2, lease_owner = '',"                   \
  " lease_expires_at = NULL, updated_at = ?2"
constexpr const char* kRetrySql =
    QUELL_RETRY_SET " WHERE idempotency_key = ?1 AND status = 'dead' RETURNING status";
// Every dead row, or those of channel ?1 when it is not NULL, in one statement.
constexpr const char* kRetryAllSql =
    QUELL_RETRY_SET " WHERE status = 'dead' AND (?1 IS NULL OR channel = ?1) RETURNING status";
#undef QUELL_RETRY_SET

// kOutboxColumns with an empty payload: a group message's holds every member's snapshot.
constexpr const char* kGroupMessagesOfSql =
    "SELECT idempotency_key, key, generation, version, transition, channel, '', status, attempts,"
    " next_attempt_at, lease_owner, lease_expires_at, last_error, remote_message_id, created_at,"
    " updated_at, kind FROM outbox WHERE idempotency_key IN (SELECT group_row FROM outbox WHERE"
    " key = ?1 AND group_row IS NOT NULL) ORDER BY created_at DESC, idempotency_key DESC"
    " LIMIT ?2";

}  // namespace

core::Result<std::vector<core::Silence>> ReadSilences(sqlite3* db, const std::string& path,
                                                      std::optional<core::WallTime> active_at) {
  Stmt s;
  const std::string sql = std::string(
                              "SELECT id, pattern, expires_at, reason, created_by, created_at,"
                              " match_kind FROM silences") +
                          (active_at ? " WHERE expires_at > ?" : "") + " ORDER BY id";
  if (auto status = s.Prepare(db, sql, path); !status) return status.error();
  if (active_at) s.BindInt(1, store::ToMicros(*active_at));
  std::vector<core::Silence> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    core::Silence silence;
    silence.id = s.Uint(0);
    silence.pattern = s.Text(1);
    silence.expires_at = store::FromMicros(s.Int(2));
    silence.reason = s.Text(3);
    silence.created_by = s.Text(4);
    silence.created_at = store::FromMicros(s.Int(5));
    auto match = store::SilenceMatchFromColumn(silence.id, s.Text(6));
    if (!match) return match.error();
    silence.match = *match;
    out.push_back(std::move(silence));
  }
  return out;
}

core::Result<uint64_t> SqliteIncidentStore::AddSilence(const core::Silence& silence) {
  Stmt s;
  if (auto status = s.Prepare(db_,
                              "INSERT INTO silences (pattern, expires_at, reason, created_by,"
                              " created_at, match_kind) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                              path_);
      !status) {
    return status.error();
  }
  s.BindText(1, silence.pattern);
  s.BindInt(2, store::ToMicros(silence.expires_at));
  s.BindText(3, silence.reason);
  s.BindText(4, silence.created_by);
  s.BindInt(5, store::ToMicros(silence.created_at));
  s.BindText(6, core::SilenceMatchName(silence.match));  // a literal: outlives the step
  auto row = s.Step();
  if (!row) return row.error();
  if (!*row) return MakeError(ErrorCode::kInternal, "silence insert returned no id");
  const uint64_t id = s.Uint(0);
  s.Reset();
  return id;
}

core::Result<std::vector<core::Silence>> SqliteIncidentStore::ListSilences(
    std::optional<core::WallTime> active_at) {
  return ReadSilences(db_, path_, active_at);
}

Status SqliteIncidentStore::RemoveSilence(uint64_t id) {
  Stmt s;
  if (auto status = s.Prepare(db_, "DELETE FROM silences WHERE id = ?", path_); !status) {
    return status;
  }
  s.BindUint(1, id);
  if (auto status = s.Run(); !status) return status;
  if (sqlite3_changes(db_) != 1) {
    return MakeError(ErrorCode::kNotFound, "no silence " + std::to_string(id));
  }
  return {};
}

namespace {

// Why an operator's change to `key` did nothing: no such row, or not dead.
core::Error NotDead(sqlite3* db, const std::string& path, std::string_view key) {
  Stmt s;
  if (auto status = s.Prepare(db, "SELECT status FROM outbox WHERE idempotency_key = ?", path);
      !status) {
    return status.error();
  }
  s.BindText(1, key);
  auto row = s.Step();
  if (!row) return row.error();
  if (!*row) return store::NotDeadError(key, std::nullopt);
  return store::NotDeadError(key, s.Text(0));
}

}  // namespace

core::Result<core::OutboxStatus> SqliteIncidentStore::RetryDead(std::string_view idempotency_key,
                                                                core::WallTime now) {
  Stmt s;
  if (auto status = s.Prepare(db_, kRetrySql, path_); !status) return status.error();
  s.BindText(1, idempotency_key);
  s.BindInt(2, store::ToMicros(now));
  auto row = s.Step();
  if (!row) return row.error();
  if (!*row) return NotDead(db_, path_, idempotency_key);
  auto status = core::ParseOutboxStatus(s.Text(0));
  s.Reset();
  return status;
}

core::Result<core::OperatorStore::RetriedRows> SqliteIncidentStore::RetryAllDead(
    std::optional<std::string_view> channel, core::WallTime now) {
  Stmt s;
  if (auto status = s.Prepare(db_, kRetryAllSql, path_); !status) return status.error();
  if (channel) s.BindText(1, *channel);
  s.BindInt(2, store::ToMicros(now));
  RetriedRows out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    ++(s.Text(0) == "pending" ? out.pending : out.superseded);
  }
  return out;
}

Status SqliteIncidentStore::DropDead(std::string_view idempotency_key, core::WallTime now) {
  Stmt s;
  if (auto status = s.Prepare(db_,
                              "UPDATE outbox SET status = 'dropped', updated_at = ?2"
                              " WHERE idempotency_key = ?1 AND status = 'dead'",
                              path_);
      !status) {
    return status;
  }
  s.BindText(1, idempotency_key);
  s.BindInt(2, store::ToMicros(now));
  if (auto status = s.Run(); !status) return status;
  if (sqlite3_changes(db_) != 1) return NotDead(db_, path_, idempotency_key);
  return {};
}

core::Result<std::vector<core::ChannelUse>> SqliteIncidentStore::GenerationChannels(
    std::string_view key, uint64_t generation) {
  Stmt s;
  if (auto status = s.Prepare(db_,
                              "SELECT channel, min(status = 'shadow') FROM outbox"
                              " WHERE key = ? AND generation = ? GROUP BY channel ORDER BY channel",
                              path_);
      !status) {
    return status.error();
  }
  s.BindText(1, key);
  s.BindUint(2, generation);
  std::vector<core::ChannelUse> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(core::ChannelUse{s.Text(0), s.Int(1) != 0});
  }
  return out;
}

namespace {

// The rows of (key, generation) a member query yields; the statement is done after.
core::Result<std::vector<core::IncidentGeneration>> ReadGenerations(Stmt& s) {
  std::vector<core::IncidentGeneration> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(core::IncidentGeneration{s.Text(0), s.Uint(1)});
  }
  return out;
}

// A carried member: a grouped row a message took (group_row set), of its incident's open
// generation. The literals let SQLite prove that the partial indexes apply.
constexpr const char* kOpenMemberSql =
    "SELECT DISTINCT m.key, m.generation FROM outbox m INDEXED BY ";
constexpr const char* kOpenMemberJoinSql =
    " JOIN incidents i ON i.key = m.key AND i.generation = m.generation AND i.status = 'open'"
    " WHERE m.status = 'grouped' AND m.group_row IS NOT NULL AND ";

}  // namespace

core::Result<std::vector<core::IncidentGeneration>> SqliteIncidentStore::OpenMembersOfMessage(
    std::string_view group_row) {
  Stmt s;
  if (auto status = s.Prepare(db_,
                              std::string(kOpenMemberSql) + "outbox_members" + kOpenMemberJoinSql +
                                  "m.group_row = ?1 ORDER BY m.key",
                              path_);
      !status) {
    return status.error();
  }
  s.BindText(1, group_row);
  return ReadGenerations(s);
}

core::Result<std::vector<core::IncidentGeneration>> SqliteIncidentStore::OpenMembersOfGroup(
    std::string_view channel, std::string_view group_key, std::optional<uint64_t> episode,
    core::WallTime carried_by) {
  // Without a channel (a key sent before episodes were kept) every channel's group: a scan of
  // the carried members' index, for a callback only.
  std::string sql = std::string(kOpenMemberSql) + "outbox_group_keys" + kOpenMemberJoinSql +
                    (channel.empty() ? "?1 = '' AND" : "m.channel = ?1 AND") +
                    " m.group_key = ?2 AND m.updated_at <= ?3";
  if (episode) {
    sql +=
        " AND EXISTS (SELECT 1 FROM outbox_groups g WHERE g.channel = ?1 AND g.group_key = ?2"
        " AND g.episode = ?4)";
  }
  sql += " ORDER BY m.key";
  Stmt s;
  if (auto status = s.Prepare(db_, sql, path_); !status) return status.error();
  s.BindText(1, channel);
  s.BindText(2, group_key);
  s.BindInt(3, store::ToMicros(carried_by));
  if (episode) s.BindUint(4, *episode);
  return ReadGenerations(s);
}

core::Result<std::vector<core::IncidentGeneration>> SqliteIncidentStore::GroupMemberKeys(
    std::string_view channel, std::string_view group_key, size_t limit) {
  // The carried members' partial index, whose predicate the literals match.
  Stmt s;
  if (auto status = s.Prepare(db_,
                              "SELECT key, MAX(generation) FROM outbox INDEXED BY"
                              " outbox_group_keys WHERE channel = ?1 AND group_key = ?2 AND"
                              " status = 'grouped' AND group_row IS NOT NULL GROUP BY key"
                              " ORDER BY key LIMIT ?3",
                              path_);
      !status) {
    return status.error();
  }
  s.BindText(1, channel);
  s.BindText(2, group_key);
  s.BindUint(3, limit);
  return ReadGenerations(s);
}

// The decisions primary key (key, version) and the outbox's UNIQUE (key, channel, generation,
// version) make both reads range scans over one key.
core::Result<std::vector<core::LoggedDecision>> SqliteIncidentStore::RecentDecisions(
    std::string_view key, size_t limit) {
  Stmt s;
  if (auto status = s.Prepare(db_,
                              "SELECT generation, version, poll_id, at, decision, reason"
                              " FROM decisions WHERE key = ? ORDER BY version DESC LIMIT ?",
                              path_);
      !status) {
    return status.error();
  }
  s.BindText(1, key);
  s.BindUint(2, limit);
  std::vector<core::LoggedDecision> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(core::LoggedDecision{.generation = s.Uint(0),
                                       .version = s.Uint(1),
                                       .poll_id = s.Text(2),
                                       .at = store::FromMicros(s.Int(3)),
                                       .decision = s.Text(4),
                                       .reason = s.Text(5)});
  }
  return out;
}

core::Result<std::vector<core::OutboxRow>> SqliteIncidentStore::RecentOutbox(std::string_view key,
                                                                             size_t limit) {
  Stmt s;
  if (auto status = s.Prepare(db_,
                              std::string("SELECT ") + kOutboxColumns +
                                  ", group_key, group_row FROM outbox WHERE key = ? ORDER BY"
                                  " generation DESC, version DESC, channel LIMIT ?",
                              path_);
      !status) {
    return status.error();
  }
  s.BindText(1, key);
  s.BindUint(2, limit);
  std::vector<core::OutboxRow> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    auto parsed = ReadOutboxRow(s);
    if (!parsed) return parsed.error();
    parsed->group_key = s.Text(kOutboxColumnCount);
    parsed->group_row = s.Text(kOutboxColumnCount + 1);
    out.push_back(std::move(*parsed));
  }
  return out;
}

core::Result<std::vector<core::OutboxRow>> SqliteIncidentStore::GroupMessagesOf(
    std::string_view key, size_t limit) {
  // The members through the key's unique index, each group message by its primary key.
  Stmt s;
  if (auto status = s.Prepare(db_, kGroupMessagesOfSql, path_); !status) return status.error();
  s.BindText(1, key);
  s.BindUint(2, limit);
  std::vector<core::OutboxRow> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    auto parsed = ReadOutboxRow(s);
    if (!parsed) return parsed.error();
    out.push_back(std::move(*parsed));
  }
  return out;
}

core::Result<core::IncidentPage> SqliteIncidentStore::ListIncidentPage(
    const core::IncidentPageQuery& query) {
  const store::IncidentPageSql sql =
      store::BuildIncidentPageSql(query, store::SqlDialect::kSqlite, kIncidentColumns);
  auto bind = [&sql](Stmt& s) {
    for (size_t i = 0; i < sql.params.size(); ++i) {
      s.BindText(static_cast<int>(i + 1), sql.params[i]);
    }
  };
  // One read transaction, so the total and the page see the same rows.
  if (auto begun = Exec(db_, "BEGIN", path_); !begun) return begun.error();
  auto read = [&]() -> core::Result<core::IncidentPage> {
    core::IncidentPage page;
    Stmt count;
    if (auto status = count.Prepare(db_, sql.count, path_); !status) return status.error();
    bind(count);
    auto counted = count.Step();
    if (!counted) return counted.error();
    page.total = *counted ? count.Uint(0) : 0;
    Stmt s;
    if (auto status = s.Prepare(db_, sql.page, path_); !status) return status.error();
    bind(s);
    const int columns = kIncidentColumnCount;
    for (;;) {
      auto row = s.Step();
      if (!row) return row.error();
      if (!*row) break;
      auto incident = ReadIncident(s);
      if (!incident) return incident.error();
      page.incidents.push_back(
          core::ListedIncident{std::move(*incident), s.Text(columns), s.Uint(columns + 1)});
    }
    return page;
  };
  auto page = read();
  if (auto ended = Exec(db_, "COMMIT", path_); !ended && page) return ended.error();
  return page;
}

namespace {

constexpr const char* kWindowColumns =
    "id, name, keys, labels, starts_at, ends_at, reason, created_by, created_at";

core::Result<core::OneOffWindow> ReadWindow(const Stmt& s) {
  core::OneOffWindow w;
  w.id = s.Uint(0);
  w.name = s.Text(1);
  w.keys = s.Text(2);
  auto labels = store::DecodeLabels(s.Text(3));
  if (!labels) return labels.error();
  w.labels = std::move(*labels);
  w.starts_at = store::FromMicros(s.Int(4));
  w.ends_at = store::FromMicros(s.Int(5));
  w.reason = s.Text(6);
  w.created_by = s.Text(7);
  w.created_at = store::FromMicros(s.Int(8));
  return w;
}

}  // namespace

core::Result<uint64_t> SqliteIncidentStore::AddOneOffWindow(const core::OneOffWindow& window) {
  Stmt s;
  if (auto status = s.Prepare(db_,
                              "INSERT INTO maintenance_windows (name, keys, labels, starts_at,"
                              " ends_at, reason, created_by, created_at) VALUES (?, ?, ?, ?, ?,"
                              " ?, ?, ?) RETURNING id",
                              path_);
      !status) {
    return status.error();
  }
  const std::string labels = store::EncodeLabels(window.labels);
  s.BindText(1, window.name);
  s.BindText(2, window.keys);
  s.BindText(3, labels);
  s.BindInt(4, store::ToMicros(window.starts_at));
  s.BindInt(5, store::ToMicros(window.ends_at));
  s.BindText(6, window.reason);
  s.BindText(7, window.created_by);
  s.BindInt(8, store::ToMicros(window.created_at));
  auto row = s.Step();
  if (!row) return row.error();
  if (!*row) return MakeError(ErrorCode::kInternal, "maintenance_windows: no id returned");
  const uint64_t id = s.Uint(0);
  s.Reset();
  return id;
}

core::Result<std::vector<core::OneOffWindow>> SqliteIncidentStore::ListOneOffWindows(
    core::WallTime ends_after) {
  Stmt s;
  const std::string sql = std::string("SELECT ") + kWindowColumns +
                          " FROM maintenance_windows WHERE ends_at > ?"
                          " ORDER BY starts_at DESC, id DESC";
  if (auto status = s.Prepare(db_, sql, path_); !status) return status.error();
  s.BindInt(1, store::ToMicros(ends_after));
  std::vector<core::OneOffWindow> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    auto window = ReadWindow(s);
    if (!window) return window.error();
    out.push_back(std::move(*window));
  }
  return out;
}

core::Result<core::OneOffWindow> SqliteIncidentStore::ExpireOneOffWindow(uint64_t id,
                                                                         core::WallTime now) {
  Stmt s;
  const std::string sql =
      std::string(
          "UPDATE maintenance_windows SET ends_at = ?2 WHERE id = ?1 AND ends_at > ?2"
          " RETURNING ") +
      kWindowColumns;
  if (auto status = s.Prepare(db_, sql, path_); !status) return status.error();
  s.BindUint(1, id);
  s.BindInt(2, store::ToMicros(now));
  auto row = s.Step();
  if (!row) return row.error();
  if (*row) {
    auto window = ReadWindow(s);
    s.Reset();
    return window;
  }
  s.Reset();
  Stmt exists;
  if (auto status = exists.Prepare(db_, "SELECT 1 FROM maintenance_windows WHERE id = ?", path_);
      !status) {
    return status.error();
  }
  exists.BindUint(1, id);
  auto found = exists.Step();
  if (!found) return found.error();
  if (!*found) {
    return MakeError(ErrorCode::kNotFound, "no maintenance window " + std::to_string(id));
  }
  return MakeError(ErrorCode::kConflict,
                   "maintenance window " + std::to_string(id) + " has ended already");
}

}  // namespace quell::sqlite

namespace quell::sqlite {
namespace {

// The newest ?2 of each list of key ?1, read newest first (each through the key's index) and
// handed back oldest first. A generation is every one > 0 the decision log or the outbox names.
constexpr const char* kTimelineDecisionsSql =
    "SELECT generation, version, poll_id, at, decision, reason FROM decisions WHERE key = ?1"
    " ORDER BY version DESC LIMIT ?2";
constexpr const char* kTimelineMarksSql =
    "SELECT poll_id, at, generation, health, decision FROM observation_marks WHERE key = ?1"
    " ORDER BY at DESC, poll_id DESC LIMIT ?2";
constexpr const char* kTimelineAttemptsSql =
    "SELECT a.idempotency_key, a.attempt, a.channel, a.generation,"
    " coalesce(o.transition, ''), a.at, a.outcome, a.detail FROM delivery_attempts a"
    " LEFT JOIN outbox o ON o.idempotency_key = a.idempotency_key WHERE a.key = ?1"
    " ORDER BY a.at DESC, a.idempotency_key DESC, a.attempt DESC LIMIT ?2";
constexpr const char* kTimelineGenerationsSql =
    "SELECT generation, min(CASE WHEN decision = 'notify' THEN at END),"
    " max(CASE WHEN decision = 'resolve' THEN at END) FROM (SELECT generation, decision, at"
    " FROM decisions WHERE key = ?1 AND generation > 0 UNION ALL SELECT DISTINCT generation,"
    " '', NULL FROM outbox WHERE key = ?1 AND generation > 0) GROUP BY generation"
    " ORDER BY generation DESC LIMIT ?2";

// Steps `sql` bound to (key, limit) and appends what `read` makes of each row.
template <typename T, typename Read>
Status ReadNewest(sqlite3* db, const std::string& path, const char* sql, std::string_view key,
                  size_t limit, std::vector<T>& out, const Read& read) {
  Stmt s;
  if (auto status = s.Prepare(db, sql, path); !status) return status;
  s.BindText(1, key);
  s.BindUint(2, limit);
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(read(s));
  }
  std::reverse(out.begin(), out.end());
  return {};
}

}  // namespace

core::Result<core::StoredTimeline> SqliteIncidentStore::ReadTimeline(std::string_view key,
                                                                     size_t limit) {
  // A deferred BEGIN: one read snapshot for the four lists, without the write lock.
  if (auto status = Exec(db_, "BEGIN", path_); !status) return status.error();
  core::StoredTimeline out;
  auto read = [&]() -> Status {
    if (auto status = ReadNewest(db_, path_, kTimelineDecisionsSql, key, limit, out.decisions,
                                 [](const Stmt& s) {
                                   return core::LoggedDecision{.generation = s.Uint(0),
                                                               .version = s.Uint(1),
                                                               .poll_id = s.Text(2),
                                                               .at = store::FromMicros(s.Int(3)),
                                                               .decision = s.Text(4),
                                                               .reason = s.Text(5)};
                                 });
        !status) {
      return status;
    }
    if (auto status = ReadNewest(db_, path_, kTimelineMarksSql, key, limit, out.marks,
                                 [](const Stmt& s) {
                                   return core::LoggedMark{.poll_id = s.Text(0),
                                                           .at = store::FromMicros(s.Int(1)),
                                                           .generation = s.Uint(2),
                                                           .health = s.Text(3),
                                                           .decision = s.Text(4)};
                                 });
        !status) {
      return status;
    }
    if (auto status = ReadNewest(db_, path_, kTimelineAttemptsSql, key, limit, out.attempts,
                                 [](const Stmt& s) {
                                   return core::LoggedAttempt{.idempotency_key = s.Text(0),
                                                              .attempt = s.Uint(1),
                                                              .channel = s.Text(2),
                                                              .generation = s.Uint(3),
                                                              .transition = s.Text(4),
                                                              .at = store::FromMicros(s.Int(5)),
                                                              .outcome = s.Text(6),
                                                              .detail = s.Text(7)};
                                 });
        !status) {
      return status;
    }
    return ReadNewest(
        db_, path_, kTimelineGenerationsSql, key, limit, out.generations, [](const Stmt& s) {
          return core::GenerationSpan{
              .generation = s.Uint(0), .opened_at = s.Time(1), .resolved_at = s.Time(2)};
        });
  };
  Status status = read();
  if (!status) {
    (void)Exec(db_, "ROLLBACK", path_);
    return status.error();
  }
  if (auto committed = Exec(db_, "COMMIT", path_); !committed) return committed.error();
  return out;
}

}  // namespace quell::sqlite
