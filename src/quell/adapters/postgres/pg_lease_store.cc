// Poll leases and the instances seen (core/ports/lease_store.h). SCAFFOLD: replaced by the
// store implementation of issue 18 before it lands.
#include "quell/adapters/postgres/pg_incident_store.h"

namespace quell::postgres {
namespace {
core::Error NotYet() {
  return core::MakeError(core::ErrorCode::kInternal, "poll leases: not built yet");
}
}  // namespace

core::Result<core::LeaseClaim> PgIncidentStore::Acquire(std::string_view, std::string_view,
                                                        core::WallTime, core::Duration) {
  return NotYet();
}
core::Status PgIncidentStore::Release(std::string_view, std::string_view, uint64_t,
                                      core::WallTime) {
  return NotYet();
}
core::Result<std::vector<core::Lease>> PgIncidentStore::ListLeases() { return NotYet(); }
core::Status PgIncidentStore::SeeInstance(const core::InstanceSeen&, core::WallTime) {
  return NotYet();
}
core::Result<std::vector<core::InstanceSeen>> PgIncidentStore::ListInstances() { return NotYet(); }

}  // namespace quell::postgres
