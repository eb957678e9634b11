#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "quell/core/ports/incident_store.h"

struct sqlite3;

namespace quell::sqlite {

struct SqliteOptions {
  // How long a writer waits for another process's write transaction before giving up with
  // kUnavailable ("database is locked by another process").
  std::chrono::milliseconds busy_timeout{30000};
};

// The embedded store: one SQLite file in WAL mode. Several processes may share the file; write
// transactions are serialised by BEGIN IMMEDIATE, so a batch never loses a compare-and-set.
// One instance per thread.
class SqliteIncidentStore : public core::IncidentStore {
 public:
  // Opens or creates `path` and applies any missing schema migrations. Errors, each one line
  // naming the path: kUnavailable (locked), kPermissionDenied (read-only or not openable),
  // kCorrupt (not a quell database, corrupt, or a schema newer than this build).
  static core::Result<std::unique_ptr<SqliteIncidentStore>> Open(const std::string& path,
                                                                 SqliteOptions options = {});
  ~SqliteIncidentStore() override;

  core::Result<std::unique_ptr<core::StoreTransaction>> Begin() override;
  core::Result<std::vector<core::Incident>> ListIncidents() override;
  core::Result<std::optional<core::Incident>> FindIncident(std::string_view key) override;
  core::Result<std::vector<core::Incident>> ListOpenIncidents(std::string_view condition) override;
  core::Result<std::vector<core::OutboxRow>> ListOutbox(
      std::optional<core::OutboxStatus> status) override;
  core::Status MarkSent(std::string_view idempotency_key, std::string_view remote_message_id,
                        core::WallTime now) override;
  core::Result<std::optional<std::string>> GetSourceMark(std::string_view name) override;
  core::Result<uint64_t> CountDecisions() override;
  core::Result<uint64_t> CountPolls() override;

  struct Statements;  // prepared once, reused by every transaction

 private:
  friend class SqliteTransaction;
  SqliteIncidentStore(std::string path, sqlite3* db);
  core::Status Migrate();
  core::Result<uint64_t> Count(const char* sql);

  std::string path_;
  sqlite3* db_;
  std::unique_ptr<Statements> statements_;
};

}  // namespace quell::sqlite
