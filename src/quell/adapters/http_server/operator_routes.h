#pragma once

#include <vector>

#include "quell/app/operator_commands.h"
#include "quell/app/operator_queries.h"
#include "quell/app/ops_request.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"

namespace quell::http_server {

// The operator's JSON endpoints over `commands` and `queries`, for the ops HTTP server
// (docs/http.md is the contract):
//   GET    /v1/incidents[?status=open|resolved|all&condition=C&limit=N]  {"incidents": [...]}
//   GET    /v1/incidents/{key}[?limit=N]      {"incident", "decisions": [...], "outbox": [...]}
//   GET    /v1/incidents/{key}/timeline[?limit=N]
//                                            {"key", "observations", "attempts", "generations"}
//   POST   /v1/incidents/{key}/ack           body {"by"?}   -> {"incident": ...}
//   POST   /v1/incidents/{key}/resolve       body {"by"?, "for"?: "2h", "upstream"?: true}
//                                            -> {"incident", "outbox": [...], "upstream_groups"}
//   GET    /v1/silences                      {"silences": [silence...]} (active ones)
//   GET    /v1/silences/preview?pattern=GLOB|key=KEY[&limit=N]
//                                            {"match", "pattern"|"key", "matched", "keys"}
//                                            (the open incidents it would match now)
//   POST   /v1/silences                      body {"key" (exact) or "pattern" (glob), "for": "2h",
//                                            "reason", "by"?} -> 201 {"silence": ...}
//   DELETE /v1/silences/{id}                 {"removed": id}
//   GET    /v1/outbox[?status=S&channel=C&limit=N]   {"rows": [outbox row...]}
//   GET    /v1/outbox/dead[?channel=C&limit=N]       {"rows": [outbox row...]}
//   POST   /v1/outbox/dead/{key}/retry       {"idempotency_key", "status": "pending"|"superseded"}
//   DELETE /v1/outbox/dead/{key}             {"idempotency_key", "status": "dropped"}
// Objects have the fields of the CLI's jsonl lines. "by" defaults to the request's actor.
// Errors are {"error": {"code", "message"}}: 400 bad_request, 404 not_found (unknown key, id or
// row), 409 conflict (not open, not dead), 503 unavailable (store), 500 internal. The POST and
// DELETE routes are write routes; each write, done or refused, is one `http.write` line in
// `log` with the action, the key it addressed and who (the request's actor, never a token).
// `commands`, `queries`, `clock` and `log` must outlive the routes; calls are serialised on one
// mutex, so the routes may be called from several server threads.
std::vector<app::OpsRoute> OperatorRoutes(app::OperatorCommands& commands,
                                          app::OperatorQueries& queries, core::Clock& clock,
                                          core::EventLog& log);

}  // namespace quell::http_server
