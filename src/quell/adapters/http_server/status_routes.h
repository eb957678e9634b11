#pragma once

#include <functional>
#include <vector>

#include "quell/app/cluster_status.h"
#include "quell/app/ops_request.h"
#include "quell/core/result.h"

namespace quell::http_server {

// GET /v1/status (docs/http.md): each poll group's lease and the instances seen, as
// `quell status --format json` prints it (text_output::ClusterStatusJson), with "instance" the
// answering daemon's id. A read route: the bearer token unless reads are open. `read` is called
// on a server thread for each request; a store error is a 503 naming it.
std::vector<app::OpsRoute> StatusRoutes(std::function<core::Result<app::ClusterStatus>()> read);

}  // namespace quell::http_server
