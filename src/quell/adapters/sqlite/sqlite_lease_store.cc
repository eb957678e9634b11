// Poll leases and the instances seen (core/ports/lease_store.h). SCAFFOLD: replaced by the
// store implementation of issue 18 before it lands.
#include "quell/adapters/sqlite/sqlite_incident_store.h"

namespace quell::sqlite {
namespace {
core::Error NotYet() {
  return core::MakeError(core::ErrorCode::kInternal, "poll leases: not built yet");
}
}  // namespace

core::Result<core::LeaseClaim> SqliteIncidentStore::Acquire(std::string_view, std::string_view,
                                                            core::WallTime, core::Duration) {
  return NotYet();
}
core::Status SqliteIncidentStore::Release(std::string_view, std::string_view, uint64_t,
                                          core::WallTime) {
  return NotYet();
}
core::Result<std::vector<core::Lease>> SqliteIncidentStore::ListLeases() { return NotYet(); }
core::Status SqliteIncidentStore::SeeInstance(const core::InstanceSeen&, core::WallTime) {
  return NotYet();
}
core::Result<std::vector<core::InstanceSeen>> SqliteIncidentStore::ListInstances() {
  return NotYet();
}

}  // namespace quell::sqlite
