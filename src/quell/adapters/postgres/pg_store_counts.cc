// PgIncidentStore's counts for the metrics gauges: one aggregate query each.
#include <map>
#include <string>

#include "quell/adapters/postgres/pg_connection.h"
#include "quell/adapters/postgres/pg_incident_store.h"

namespace quell::postgres {

core::Result<uint64_t> PgIncidentStore::CountOpenIncidents() {
  auto result = connection_->Run("SELECT count(*) FROM incidents WHERE status = 'open'");
  if (!result) return result.error();
  return UintAt(result->get(), 0, 0);
}

core::Result<std::map<std::string, uint64_t>> PgIncidentStore::CountOutboxByStatus() {
  auto result = connection_->Run("SELECT status, count(*) FROM outbox GROUP BY status");
  if (!result) return result.error();
  std::map<std::string, uint64_t> out;
  const PGresult* r = result->get();
  for (int i = 0; i < PQntuples(r); ++i) out.emplace(TextAt(r, i, 0), UintAt(r, i, 1));
  return out;
}

}  // namespace quell::postgres
