#pragma once

#include <vector>

#include "quell/app/latest.h"
#include "quell/app/one_off_maintenance.h"
#include "quell/app/ops_request.h"
#include "quell/core/delivery/maintenance_window.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"
#include "quell/core/ports/zone_rules.h"

namespace quell::http_server {

// The windows GET /v1/maintenance lists: the running config's, replaced at each reload the
// daemon accepts.
using MaintenanceListing = app::Latest<std::vector<core::MaintenanceWindow>>;

// The operator's read of the maintenance windows, for the ops server (docs/http.md):
//   GET /v1/maintenance   {"windows": [window...]}, each as `quell maintenance list` prints it
//                         (text_output::MaintenanceWindowJson) at the clock's now
// A read route: the bearer token unless reads are open. A zone `zones` does not know is a 500
// naming the window (the config loader refuses such a file before anything serves).
// `listing`, `zones` and `clock` must outlive the routes; the route is safe on several server
// threads.
//
// With `one_off` (and `log` for the audit lines), the operator's one-off windows too:
//   GET  /v1/maintenance                gains "one_off": [window...]
//   (text_output::OneOffWindowJson),
//                                       those ending after now - 24h, newest start first
//   POST /v1/maintenance                body {"name"?, "keys", "labels"?: {}, "starts_at"?,
//                                       "ends_at"? | "for"?, "reason", "by"?} -> 201 {"window"}
//   POST /v1/maintenance/{id}/expire    -> {"window"} ending now; 404 unknown, 409 ended
// Each write is one http.write line (maintenance.add, maintenance.expire). `one_off` runs on
// the operator store's connection: the server must call these routes from one thread at a time
// (its worker lane does).
std::vector<app::OpsRoute> MaintenanceRoutes(const MaintenanceListing& listing,
                                             const core::ZoneRules& zones, core::Clock& clock,
                                             app::OneOffMaintenance* one_off = nullptr,
                                             core::EventLog* log = nullptr);

}  // namespace quell::http_server
