// SqliteIncidentStore's counts for the metrics gauges: one aggregate query each.
#include <map>
#include <string>

#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/adapters/sqlite/sqlite_statement.h"

namespace quell::sqlite {

core::Result<uint64_t> SqliteIncidentStore::CountOpenIncidents() {
  // The literal lets SQLite count through the partial index incidents_open.
  return Count("SELECT count(*) FROM incidents WHERE status = 'open'");
}

core::Result<std::map<std::string, uint64_t>> SqliteIncidentStore::CountOutboxByStatus() {
  Stmt s;
  // outbox_due leads with status, so this walks an index, not the payloads.
  if (auto status = s.Prepare(db_, "SELECT status, count(*) FROM outbox GROUP BY status", path_);
      !status) {
    return status.error();
  }
  std::map<std::string, uint64_t> out;
  while (true) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    out.emplace(s.Text(0), s.Uint(1));
  }
  return out;
}

}  // namespace quell::sqlite
