#pragma once

#include <functional>
#include <vector>

#include "quell/adapters/text_output/sources_json.h"
#include "quell/app/ops_request.h"

namespace quell::http_server {

// GET /v1/sources (a read): what `read` assembles, as text_output::SourcesJson writes it. It
// reads no store: the catalog, the last cycles and the heartbeat live in the process.
std::vector<app::OpsRoute> SourcesRoutes(std::function<text_output::SourcesAnswer()> read);

}  // namespace quell::http_server
