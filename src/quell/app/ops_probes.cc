#include "quell/app/ops_probes.h"

namespace quell::app {

core::Status OpsProbes::PingStore() {
  if (auto writes = writes_.Status(); !writes) return writes;
  const std::lock_guard<std::mutex> lock(mu_);
  auto open = store_.CountOpenIncidents();
  if (!open) return open.error();
  return {};
}

std::string OpsProbes::RenderMetrics() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    (void)metrics_.RefreshStoreGauges(store_);
  }
  return registry_.Render();
}

}  // namespace quell::app
