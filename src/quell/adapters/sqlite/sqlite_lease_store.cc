// Poll leases and the instances seen (core/ports/lease_store.h). An Acquire reads and writes the
// lease row inside one BEGIN IMMEDIATE transaction, which holds the file's write lock from its
// start: of two processes racing for one lease, the second reads what the first wrote.
#include <sqlite3.h>

#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/adapters/sqlite/sqlite_statement.h"
#include "quell/adapters/store_common/incident_codec.h"
#include "quell/adapters/store_common/lease_rules.h"

namespace quell::sqlite {

using core::Status;

struct SqliteIncidentStore::LeaseStatements {
  Stmt begin, commit, rollback;
  Stmt find, put, release, list, see, forget, instances;
};

void SqliteIncidentStore::LeaseStatementsDeleter::operator()(LeaseStatements* s) const {
  delete s;  // NOLINT(cppcoreguidelines-owning-memory): the unique_ptr's deleter
}

namespace {

constexpr const char* kLeaseColumns =
    "name, holder, token, expires_at, acquired_at, renewed_at, polled_at";

core::Lease ReadLease(const Stmt& s) {
  core::Lease lease;
  lease.name = s.Text(0);
  lease.holder = s.Text(1);
  lease.token = s.Uint(2);
  lease.expires_at = store::FromMicros(s.Int(3));
  lease.acquired_at = store::FromMicros(s.Int(4));
  lease.renewed_at = store::FromMicros(s.Int(5));
  lease.polled_at = s.Time(6);
  return lease;
}

}  // namespace

core::Result<SqliteIncidentStore::LeaseStatements*> SqliteIncidentStore::LeaseStmts() {
  if (leases_) return leases_.get();
  std::unique_ptr<LeaseStatements, LeaseStatementsDeleter> made(new LeaseStatements());
  LeaseStatements& s = *made;
  const std::string cols = kLeaseColumns;
  const std::pair<Stmt*, std::string> sql[] = {
      {&s.begin, "BEGIN IMMEDIATE"},
      {&s.commit, "COMMIT"},
      {&s.rollback, "ROLLBACK"},
      {&s.find, "SELECT " + cols + " FROM poll_leases WHERE name = ?"},
      // polled_at is the poll's to write (FencePoll), never the keeper's.
      {&s.put,
       "INSERT INTO poll_leases (name, holder, token, expires_at, acquired_at, renewed_at)"
       " VALUES (?,?,?,?,?,?) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
       " token = excluded.token, expires_at = excluded.expires_at,"
       " acquired_at = excluded.acquired_at, renewed_at = excluded.renewed_at"},
      {&s.release,
       "UPDATE poll_leases SET holder = '', expires_at = ?4 WHERE name = ?1 AND holder = ?2"
       " AND token = ?3"},
      {&s.list, "SELECT " + cols + " FROM poll_leases ORDER BY name"},
      {&s.see,
       "INSERT INTO instances (id, host, pid, version, started_at, last_seen_at)"
       " VALUES (?,?,?,?,?,?) ON CONFLICT (id) DO UPDATE SET host = excluded.host,"
       " pid = excluded.pid, version = excluded.version, started_at = excluded.started_at,"
       " last_seen_at = excluded.last_seen_at"},
      {&s.forget, "DELETE FROM instances WHERE last_seen_at < ?1 AND id <> ?2"},
      {&s.instances,
       "SELECT id, host, pid, version, started_at, last_seen_at FROM instances ORDER BY id"},
  };
  for (const auto& [stmt, text] : sql) {
    if (auto status = stmt->Prepare(db_, text, path_); !status) return status.error();
  }
  leases_ = std::move(made);
  return leases_.get();
}

core::Result<core::LeaseClaim> SqliteIncidentStore::Acquire(std::string_view name,
                                                            std::string_view holder,
                                                            core::WallTime now,
                                                            core::Duration ttl) {
  auto stmts = LeaseStmts();
  if (!stmts) return stmts.error();
  LeaseStatements& s = **stmts;
  if (auto status = s.begin.Run(); !status) return status.error();
  auto fail = [&s](core::Error error) -> core::Error {
    (void)s.rollback.Run();
    return error;
  };
  s.find.BindText(1, name);
  auto row = s.find.Step();
  if (!row) return fail(row.error());
  std::optional<core::Lease> current;
  if (*row) current = ReadLease(s.find);
  s.find.Reset();

  core::LeaseClaim claim = store::NextLease(current, name, holder, now, ttl);
  if (claim.held) {
    const core::Lease& l = claim.lease;
    s.put.BindText(1, l.name);
    s.put.BindText(2, l.holder);
    s.put.BindUint(3, l.token);
    s.put.BindInt(4, store::ToMicros(l.expires_at));
    s.put.BindInt(5, store::ToMicros(l.acquired_at));
    s.put.BindInt(6, store::ToMicros(l.renewed_at));
    if (auto status = s.put.Run(); !status) return fail(status.error());
  }
  if (auto status = s.commit.Run(); !status) return fail(status.error());
  return claim;
}

Status SqliteIncidentStore::Release(std::string_view name, std::string_view holder, uint64_t token,
                                    core::WallTime now) {
  auto stmts = LeaseStmts();
  if (!stmts) return stmts.error();
  Stmt& s = (*stmts)->release;
  s.BindText(1, name);
  s.BindText(2, holder);
  s.BindUint(3, token);
  s.BindInt(4, store::ToMicros(now));
  return s.Run();
}

core::Result<std::vector<core::Lease>> SqliteIncidentStore::ListLeases() {
  auto stmts = LeaseStmts();
  if (!stmts) return stmts.error();
  Stmt& s = (*stmts)->list;
  std::vector<core::Lease> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(ReadLease(s));
  }
  s.Reset();
  return out;
}

Status SqliteIncidentStore::SeeInstance(const core::InstanceSeen& instance,
                                        core::WallTime forget_before) {
  auto stmts = LeaseStmts();
  if (!stmts) return stmts.error();
  LeaseStatements& s = **stmts;
  if (auto status = s.begin.Run(); !status) return status;
  auto fail = [&s](core::Error error) -> Status {
    (void)s.rollback.Run();
    return error;
  };
  s.see.BindText(1, instance.id);
  s.see.BindText(2, instance.host);
  s.see.BindUint(3, instance.pid);
  s.see.BindText(4, instance.version);
  s.see.BindInt(5, store::ToMicros(instance.started_at));
  s.see.BindInt(6, store::ToMicros(instance.last_seen_at));
  if (auto status = s.see.Run(); !status) return fail(status.error());
  s.forget.BindInt(1, store::ToMicros(forget_before));
  s.forget.BindText(2, instance.id);
  if (auto status = s.forget.Run(); !status) return fail(status.error());
  if (auto status = s.commit.Run(); !status) return fail(status.error());
  return {};
}

core::Result<std::vector<core::InstanceSeen>> SqliteIncidentStore::ListInstances() {
  auto stmts = LeaseStmts();
  if (!stmts) return stmts.error();
  Stmt& s = (*stmts)->instances;
  std::vector<core::InstanceSeen> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    core::InstanceSeen seen;
    seen.id = s.Text(0);
    seen.host = s.Text(1);
    seen.pid = s.Uint(2);
    seen.version = s.Text(3);
    seen.started_at = store::FromMicros(s.Int(4));
    seen.last_seen_at = store::FromMicros(s.Int(5));
    out.push_back(std::move(seen));
  }
  s.Reset();
  return out;
}

}  // namespace quell::sqlite
