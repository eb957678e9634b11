#pragma once

#include <vector>

#include "quell/app/operator_commands.h"
#include "quell/app/ops_request.h"
#include "quell/core/ports/clock.h"

namespace quell::cli {

// The operator's JSON endpoints over `commands`, for the ops HTTP server:
//   GET    /v1/incidents[?status=open]       {"incidents": [incident...]}
//   POST   /v1/incidents/{key}/ack           body {"by"?}   -> {"incident": ...}
//   POST   /v1/incidents/{key}/resolve       body {"by"?, "for"?: "2h", "upstream"?: true}
//                                            -> {"incident", "outbox": [...], "upstream_groups"}
//   GET    /v1/silences                      {"silences": [silence...]} (active ones)
//   POST   /v1/silences                      body {"pattern", "for": "2h", "reason", "by"?}
//                                            -> 201 {"silence": ...}
//   DELETE /v1/silences/{id}                 {"removed": id}
//   GET    /v1/outbox/dead                   {"rows": [outbox row...]}
//   POST   /v1/outbox/dead/{key}/retry       {"idempotency_key", "status": "pending"|"superseded"}
//   DELETE /v1/outbox/dead/{key}             {"idempotency_key", "status": "dropped"}
// Objects have the fields of the CLI's jsonl lines. "by" defaults to the request's actor. Errors
// are {"error": "..."}: 400 bad input, 404 unknown key/id/row, 409 wrong state (not open, not
// dead), 503 store unavailable, 500 otherwise. The POST and DELETE routes are write routes.
// `commands` and `clock` must outlive the routes; calls are serialised on one mutex, so the
// routes may be called from several server threads.
std::vector<app::OpsRoute> OperatorRoutes(app::OperatorCommands& commands, core::Clock& clock);

}  // namespace quell::cli
