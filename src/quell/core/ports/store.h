#pragma once

#include <concepts>
#include <memory>
#include <utility>

#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/lease_store.h"
#include "quell/core/ports/operator_store.h"
#include "quell/core/ports/outbox_store.h"
#include "quell/core/ports/shadow_report_store.h"

namespace quell::core {

// A backend that holds every store port on one connection (SqliteIncidentStore,
// PgIncidentStore).
template <typename Backend>
concept StoreBackend = std::derived_from<Backend, IncidentStore> &&
    std::derived_from<Backend, OutboxStore> && std::derived_from<Backend, OperatorStore> &&
    std::derived_from<Backend, ShadowReportStore> && std::derived_from<Backend, LeaseStore>;

// One opened store: a single connection that owns its backend and hands out each port by its
// role, so a caller that needs the outbox asks for it instead of casting. Move-only; the
// references stay valid as long as the handle, and share its thread rules (one per thread).
class Store {
 public:
  template <StoreBackend Backend>
  explicit Store(std::unique_ptr<Backend> backend)
      : outbox_(backend.get()),
        operators_(backend.get()),
        reports_(backend.get()),
        leases_(backend.get()),
        incidents_(std::move(backend)) {}

  Store(Store&&) noexcept = default;
  Store& operator=(Store&&) noexcept = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store() = default;

  // The writer's and reader's port: poll transactions, incidents, the decision log.
  IncidentStore& incidents() { return *incidents_; }
  // The dispatcher's port: claims, outcomes, trimming.
  OutboxStore& outbox() { return *outbox_; }
  // The operator's port: silences, dead-letter retries, counts and history.
  OperatorStore& operators() { return *operators_; }
  // The shadow report's reads.
  ShadowReportStore& reports() { return *reports_; }
  // The lease keeper's port: poll leases and the instances seen.
  LeaseStore& leases() { return *leases_; }

 private:
  // Views into the object incidents_ owns; declared first so they are set before it is moved.
  OutboxStore* outbox_;
  OperatorStore* operators_;
  ShadowReportStore* reports_;
  LeaseStore* leases_;
  std::unique_ptr<IncidentStore> incidents_;
};

}  // namespace quell::core
