#include "quell/app/budget_folding.h"

#include <set>
#include <string>

#include "quell/core/delivery/tenant_budget.h"

namespace quell::app {

core::Result<uint64_t> FoldOverBudget(core::StoreTransaction& tx,
                                      std::vector<core::OutboxRow>& rows, uint32_t per_hour,
                                      core::WallTime now) {
  if (per_hour == 0) return uint64_t{0};
  const core::BudgetWindow window = core::HourWindow(now);
  std::set<std::string> digests;  // idempotency keys of the digest rows appended here
  std::vector<core::OutboxRow> added;
  uint64_t folded = 0;
  for (core::OutboxRow& row : rows) {
    if (row.status != core::OutboxStatus::kPending || core::IsDigestRow(row)) continue;
    const std::string_view tenant = core::TenantOf(row.key);
    auto admitted = tx.AdmitToBudget(tenant, row.channel, window.start, per_hour);
    if (!admitted) return admitted.error();
    if (*admitted) continue;
    row.status = core::OutboxStatus::kFolded;
    ++folded;
    core::OutboxRow digest = core::MakeDigestRow(tenant, row.channel, window, now);
    if (digests.insert(digest.idempotency_key).second) added.push_back(std::move(digest));
  }
  for (core::OutboxRow& digest : added) rows.push_back(std::move(digest));
  return folded;
}

}  // namespace quell::app
