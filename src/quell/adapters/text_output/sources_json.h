#pragma once

#include <map>
#include <optional>
#include <string>

#include "quell/app/heartbeat.h"
#include "quell/app/source_catalog.h"
#include "quell/core/text/time.h"

namespace quell::text_output {

// What GET /v1/sources answers (docs/http.md): the running config's sources and conditions,
// each condition's last cycle on this instance, and the heartbeat.
struct SourcesAnswer {
  core::WallTime now;
  std::string instance;  // empty: null
  app::SourceCatalog catalog;
  std::map<std::string, app::LastConditionCycle> last_cycles;  // by condition
  bool heartbeat_configured = false;
  app::HeartbeatStats heartbeat;
};

std::string SourcesJson(const SourcesAnswer& answer);

}  // namespace quell::text_output
