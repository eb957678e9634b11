#pragma once

#include <mutex>
#include <string>

#include "quell/app/metrics.h"
#include "quell/app/run_metrics.h"
#include "quell/app/store_health.h"
#include "quell/core/ports/incident_store.h"
#include "quell/core/result.h"

namespace quell::app {

// What /readyz and /metrics read of a running daemon, on a store connection of their own.
// Probes and scrapes arrive on the HTTP server's threads while a store is one per thread, so one
// mutex serialises them over it. Everything passed in must outlive the probes. Thread-safe.
class OpsProbes {
 public:
  OpsProbes(core::IncidentStore& store, const StoreHealth& writes, RunMetrics& metrics,
            const MetricsRegistry& registry)
      : store_(store), writes_(writes), metrics_(metrics), registry_(registry) {}

  // Ok when the daemon's last writes went through and the store answers a read. The writes
  // first: a store that answers this read may refuse every write.
  core::Status PingStore();
  // The metrics text, with the store gauges read afresh (two aggregate queries; when they fail
  // the gauges keep their last values).
  std::string RenderMetrics();

 private:
  std::mutex mu_;  // guards store_
  core::IncidentStore& store_;
  const StoreHealth& writes_;
  RunMetrics& metrics_;
  const MetricsRegistry& registry_;
};

}  // namespace quell::app
