#pragma once

#include "quell/adapters/config/config.h"
#include "quell/app/source_catalog.h"

namespace quell::wiring {

// The sources and conditions `config` polls, as GET /v1/sources lists them: the sources in a
// fixed order (Infrai's error groups, Infrai's metrics, Prometheus), each only when a condition
// reads it, with its base URL stripped of userinfo and query; the conditions
// reading error groups, then the metric conditions, each in config order.
app::SourceCatalog SourceCatalogOf(const config::Config& config);

}  // namespace quell::wiring
