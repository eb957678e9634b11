#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/adapters/store_common/incident_codec.h"
#include "quell/core/engine/silence.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"

// The SQLite plumbing the incident store and the outbox share: errors, prepared statements and
// the outbox row's columns. Private to the sqlite adapter.
namespace quell::sqlite {

// One clear line per failure, naming the file; the caller adds what it was doing.
core::Error SqlError(sqlite3* db, int rc, const std::string& path);

// Runs parameterless statements.
core::Status Exec(sqlite3* db, const char* sql, const std::string& path);

// A prepared statement, reset after each use so it can be reused.
class Stmt {
 public:
  Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() { sqlite3_finalize(stmt_); }

  core::Status Prepare(sqlite3* db, const std::string& sql, const std::string& path) {
    db_ = db;
    path_ = &path;
    const int rc =
        sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
    if (rc != SQLITE_OK) return SqlError(db, rc, path);
    return {};
  }

  void BindText(int i, std::string_view v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  }
  void BindInt(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void BindUint(int i, uint64_t v) { sqlite3_bind_int64(stmt_, i, static_cast<int64_t>(v)); }
  // An empty text binds NULL: for optional text columns.
  void BindTextOrNull(int i, std::string_view v) {
    if (v.empty()) {
      sqlite3_bind_null(stmt_, i);
    } else {
      BindText(i, v);
    }
  }
  void BindTime(int i, const std::optional<core::WallTime>& t) {
    if (t) {
      sqlite3_bind_int64(stmt_, i, store::ToMicros(*t));
    } else {
      sqlite3_bind_null(stmt_, i);
    }
  }

  // true: a row is ready; false: done. Any other outcome is an error.
  core::Result<bool> Step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    core::Error error = SqlError(db_, rc, *path_);
    Reset();
    return error;
  }
  // Runs a statement that returns no rows, then resets it.
  core::Status Run() {
    auto stepped = Step();
    Reset();
    if (!stepped) return stepped.error();
    return {};
  }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  uint64_t Uint(int col) const { return static_cast<uint64_t>(sqlite3_column_int64(stmt_, col)); }
  std::string Text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    if (p == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(p),
                       static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
  }
  // The column's text without a copy: valid until the statement steps or resets.
  std::string_view TextView(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    if (p == nullptr) return {};
    return {reinterpret_cast<const char*>(p),
            static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
  }
  std::optional<core::WallTime> Time(int col) const {
    if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return std::nullopt;
    return store::FromMicros(sqlite3_column_int64(stmt_, col));
  }

 private:
  sqlite3* db_ = nullptr;
  const std::string* path_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

// The outbox columns, in the order ReadOutboxRow reads them.
inline constexpr const char* kOutboxColumns =
    "idempotency_key, key, generation, version, transition, channel, payload, status, attempts,"
    " next_attempt_at, lease_owner, lease_expires_at, last_error, remote_message_id, created_at,"
    " updated_at, kind";
// How many columns kOutboxColumns names: a statement's extra columns come after them.
inline constexpr int kOutboxColumnCount = 17;

// The row `s` stands on, selected as kOutboxColumns. kCorrupt for an unknown status or kind.
core::Result<core::OutboxRow> ReadOutboxRow(const Stmt& s);

// The incident columns, in the order ReadIncident reads them.
inline constexpr const char* kIncidentColumns =
    "key, condition, generation, status, version, opened_at, first_seen_at, last_seen_at,"
    " last_observed_at, last_notified_at, resolved_at, healthy_streak, event_count,"
    " renotify_count, flap_bits, flap_count, flapping, acked_at, acked_by, recent_evidence, held,"
    " held_until, labels, unhealthy_streak, upstream_count, upstream_count_at_message,"
    " upstream_count_since_message, evidence_fingerprint";
// How many columns kIncidentColumns names: a statement's extra columns come after them.
inline constexpr int kIncidentColumnCount = 28;

// The row `s` stands on, selected as kIncidentColumns from column 0. kCorrupt for a row that
// does not decode (sqlite_incident_store.cc).
core::Result<core::Incident> ReadIncident(const Stmt& s);

// The silences by id, only those active at `active_at` when given (sqlite_operator_store.cc).
core::Result<std::vector<core::Silence>> ReadSilences(sqlite3* db, const std::string& path,
                                                      std::optional<core::WallTime> active_at);

}  // namespace quell::sqlite
