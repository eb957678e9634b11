// Poll leases and the instances seen (core/ports/lease_store.h). An Acquire is one transaction
// that locks the lease row (SELECT ... FOR UPDATE) before it decides: a second instance racing
// for the lease waits on the lock and then reads what the first committed. A poll's FencePoll
// holds the same row lock until its commit, so a takeover also waits for a poll in flight.
#include "quell/adapters/postgres/pg_connection.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/store_common/lease_rules.h"

namespace quell::postgres {
namespace {

constexpr const char* kLeaseColumns =
    "name, holder, token, expires_at, acquired_at, renewed_at, polled_at";

std::string Micros(core::WallTime t) { return std::to_string(store::ToMicros(t)); }

core::Lease LeaseAt(const PGresult* r, int i) {
  core::Lease lease;
  lease.name = TextAt(r, i, 0);
  lease.holder = TextAt(r, i, 1);
  lease.token = UintAt(r, i, 2);
  lease.expires_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 3)));
  lease.acquired_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 4)));
  lease.renewed_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 5)));
  lease.polled_at = TimeAt(r, i, 6);
  return lease;
}

// The lease row, locked until the transaction ends; nullopt when there is none.
core::Result<std::optional<core::Lease>> LockLease(Connection& c, std::string_view name) {
  static const std::string sql =
      std::string("SELECT ") + kLeaseColumns + " FROM poll_leases WHERE name = $1 FOR UPDATE";
  auto result = c.Run(sql, {std::string(name)});
  if (!result) return result.error();
  if (PQntuples(result->get()) == 0) return std::optional<core::Lease>();
  return std::optional<core::Lease>(LeaseAt(result->get(), 0));
}

core::Result<core::LeaseClaim> AcquireIn(Connection& c, std::string_view name,
                                         std::string_view holder, core::WallTime now,
                                         core::Duration ttl) {
  auto current = LockLease(c, name);
  if (!current) return current.error();
  if (!*current) {
    // No row to lock: insert one, and if another instance inserted it first, lock that one
    // (this statement's snapshot is newer than its commit) and decide on it.
    static const std::string insert =
        "INSERT INTO poll_leases (name, holder, token, expires_at, acquired_at, renewed_at)"
        " VALUES ($1, $2, 1, $3, $4, $4) ON CONFLICT (name) DO NOTHING";
    auto inserted =
        c.Run(insert, {std::string(name), std::string(holder), Micros(now + ttl), Micros(now)});
    if (!inserted) return inserted.error();
    if (Affected(inserted->get()) == 1)
      return store::NextLease(std::nullopt, name, holder, now, ttl);
    current = LockLease(c, name);
    if (!current) return current.error();
  }
  core::LeaseClaim claim = store::NextLease(*current, name, holder, now, ttl);
  if (!claim.held) return claim;
  // polled_at is the poll's to write (FencePoll), never the keeper's.
  static const std::string update =
      "UPDATE poll_leases SET holder = $2, token = $3, expires_at = $4, acquired_at = $5,"
      " renewed_at = $6 WHERE name = $1";
  const core::Lease& l = claim.lease;
  auto updated = c.Run(update, {l.name, l.holder, std::to_string(l.token), Micros(l.expires_at),
                                Micros(l.acquired_at), Micros(l.renewed_at)});
  if (!updated) return updated.error();
  return claim;
}

}  // namespace

core::Result<core::LeaseClaim> PgIncidentStore::Acquire(std::string_view name,
                                                        std::string_view holder, core::WallTime now,
                                                        core::Duration ttl) {
  Connection& c = *connection_;
  if (auto begun = c.Run("BEGIN"); !begun) return begun.error();
  auto claim = AcquireIn(c, name, holder, now, ttl);
  if (!claim) {
    (void)c.Run("ROLLBACK");
    return claim.error();
  }
  if (auto committed = c.Run("COMMIT"); !committed) return committed.error();
  return claim;
}

core::Status PgIncidentStore::Release(std::string_view name, std::string_view holder,
                                      uint64_t token, core::WallTime now) {
  static const std::string sql =
      "UPDATE poll_leases SET holder = '', expires_at = $4 WHERE name = $1 AND holder = $2"
      " AND token = $3";
  auto result = connection_->Run(
      sql, {std::string(name), std::string(holder), std::to_string(token), Micros(now)});
  if (!result) return result.error();
  return {};
}

core::Result<std::vector<core::Lease>> PgIncidentStore::ListLeases() {
  static const std::string sql =
      std::string("SELECT ") + kLeaseColumns + " FROM poll_leases ORDER BY name COLLATE \"C\"";
  auto result = connection_->Run(sql.c_str());
  if (!result) return result.error();
  std::vector<core::Lease> out;
  const int rows = PQntuples(result->get());
  out.reserve(static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) out.push_back(LeaseAt(result->get(), i));
  return out;
}

core::Status PgIncidentStore::SeeInstance(const core::InstanceSeen& instance,
                                          core::WallTime forget_before) {
  // One statement, so the upsert and the forgetting commit together.
  static const std::string sql =
      "WITH seen AS (INSERT INTO instances (id, host, pid, version, started_at, last_seen_at)"
      " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO UPDATE SET host = excluded.host,"
      " pid = excluded.pid, version = excluded.version, started_at = excluded.started_at,"
      " last_seen_at = excluded.last_seen_at RETURNING id)"
      " DELETE FROM instances WHERE last_seen_at < $7 AND id NOT IN (SELECT id FROM seen)";
  auto result = connection_->Run(
      sql, {instance.id, instance.host, std::to_string(instance.pid), instance.version,
            Micros(instance.started_at), Micros(instance.last_seen_at), Micros(forget_before)});
  if (!result) return result.error();
  return {};
}

core::Result<std::vector<core::InstanceSeen>> PgIncidentStore::ListInstances() {
  auto result = connection_->Run(
      "SELECT id, host, pid, version, started_at, last_seen_at FROM instances"
      " ORDER BY id COLLATE \"C\"");
  if (!result) return result.error();
  std::vector<core::InstanceSeen> out;
  const PGresult* r = result->get();
  for (int i = 0; i < PQntuples(r); ++i) {
    core::InstanceSeen seen;
    seen.id = TextAt(r, i, 0);
    seen.host = TextAt(r, i, 1);
    seen.pid = UintAt(r, i, 2);
    seen.version = TextAt(r, i, 3);
    seen.started_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 4)));
    seen.last_seen_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 5)));
    out.push_back(std::move(seen));
  }
  return out;
}

}  // namespace quell::postgres
