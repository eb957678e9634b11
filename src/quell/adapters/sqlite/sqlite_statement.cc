#include "quell/adapters/sqlite/sqlite_statement.h"

namespace quell::sqlite {

using core::ErrorCode;
using core::MakeError;

core::Error SqlError(sqlite3* db, int rc, const std::string& path) {
  const int primary = rc & 0xff;
  const std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  switch (primary) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return MakeError(ErrorCode::kUnavailable, "database is locked by another process: " + path);
    case SQLITE_READONLY:
      return MakeError(ErrorCode::kPermissionDenied,
                       "database is read-only: " + path + " (" + detail + ")");
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return MakeError(ErrorCode::kCorrupt, "not a quell database or corrupt: " + path);
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return MakeError(ErrorCode::kPermissionDenied,
                       "cannot open database " + path + ": " + detail);
    case SQLITE_FULL:
    case SQLITE_IOERR:
      return MakeError(ErrorCode::kUnavailable, "cannot write database " + path + ": " + detail);
    case SQLITE_CONSTRAINT:
      return MakeError(ErrorCode::kConflict, "constraint failed in " + path + ": " + detail);
    default:
      return MakeError(ErrorCode::kInternal, "SQLite error on " + path + ": " + detail);
  }
}

core::Status Exec(sqlite3* db, const char* sql, const std::string& path) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  sqlite3_free(message);
  if (rc != SQLITE_OK) return SqlError(db, rc, path);
  return {};
}

core::Result<core::OutboxRow> ReadOutboxRow(const Stmt& s) {
  core::OutboxRow row;
  row.idempotency_key = s.Text(0);
  row.key = s.Text(1);
  row.generation = s.Uint(2);
  row.version = s.Uint(3);
  auto transition = core::ParseTransitionName(s.Text(4));
  if (!transition) return transition.error();
  row.transition = *transition;
  row.channel = s.Text(5);
  row.payload = s.Text(6);
  auto status = core::ParseOutboxStatus(s.Text(7));
  if (!status) return MakeError(ErrorCode::kCorrupt, status.error().message);
  row.status = *status;
  row.attempts = static_cast<uint32_t>(s.Uint(8));
  row.next_attempt_at = store::FromMicros(s.Int(9));
  row.lease_owner = s.Text(10);
  row.lease_expires_at = s.Time(11);
  row.last_error = s.Text(12);
  row.remote_message_id = s.Text(13);
  row.created_at = store::FromMicros(s.Int(14));
  row.updated_at = store::FromMicros(s.Int(15));
  auto kind = core::ParseOutboxRowKind(s.Text(16));
  if (!kind) return kind.error();
  row.kind = *kind;
  return row;
}

std::string ValuesGroups(size_t rows, size_t per_row, size_t first, size_t shared,
                         size_t shared_at) {
  std::string sql;
  size_t next = first;
  for (size_t r = 0; r < rows; ++r) {
    sql += r == 0 ? "(" : ",(";
    const size_t places = per_row + (shared != 0 ? 1 : 0);
    for (size_t p = 0; p < places; ++p) {
      if (p > 0) sql += ',';
      sql += '?';
      sql += std::to_string(shared != 0 && p == shared_at ? shared : next++);
    }
    sql += ')';
  }
  return sql;
}

}  // namespace quell::sqlite
