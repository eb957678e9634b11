#pragma once

#include <vector>

#include "quell/app/latest.h"
#include "quell/app/ops_request.h"
#include "quell/app/push_input.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"

namespace quell::http_server {

// The push inputs, both write routes (the bearer token is checked before the body is read):
//   POST /v1/inputs/alertmanager[?condition=NAME]  Alertmanager's or Grafana's webhook payload
//   POST /v1/inputs/datadog[?condition=NAME]       Datadog's webhook integration, quell's template
//   POST /v1/observations[?poll_id=ID]             quell's observation JSON (object, array, lines)
// Each answers only after its one transaction committed: 200 {"poll_id","condition",
// "observations","changed","outbox_rows","duplicate","decisions":[{"key","decision","reason"}]};
// 400 {"error":{"code":"invalid_argument","message":"alerts[2].labels.team: ..."}} naming the
// field; 503 with Retry-After when the store cannot take it; nothing applied on any error.
// `settings` (the running config's, read per request) bound what a request may hold; an
// observation's `at` may run ahead of `clock` by limits.future_skew at most. With `log`, each
// push is one line: input.applied (what it changed) or input.refused (the status and why).
std::vector<app::OpsRoute> InputRoutes(app::PushInput& input,
                                       const app::Latest<app::PushSettings>& settings,
                                       core::Clock& clock, core::EventLog* log = nullptr);

}  // namespace quell::http_server
