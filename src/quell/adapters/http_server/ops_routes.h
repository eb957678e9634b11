#pragma once

#include <functional>
#include <vector>

#include "quell/adapters/http_server/callback_routes.h"
#include "quell/adapters/http_server/maintenance_routes.h"
#include "quell/adapters/http_server/session_store.h"
#include "quell/adapters/text_output/sources_json.h"
#include "quell/app/cluster_status.h"
#include "quell/app/health.h"
#include "quell/app/latest.h"
#include "quell/app/one_off_maintenance.h"
#include "quell/app/operator_commands.h"
#include "quell/app/operator_queries.h"
#include "quell/app/ops_request.h"
#include "quell/app/push_input.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"
#include "quell/core/ports/zone_rules.h"
#include "quell/core/result.h"

namespace quell::http_server {

// What `quell run`'s routes are served from, opened by the composition (wiring::OpsSurface).
// Each group of routes holds its own services because each runs on a store connection of its
// own: the callbacks' commands are not the operators', so a provider's retry storm never
// queues an operator's ack behind it, and the push input takes one request at a time.
// Everything pointed to must outlive the routes.
struct OpsServices {
  core::Clock* clock = nullptr;
  core::EventLog* log = nullptr;
  app::HealthSources health;  // /healthz, /readyz, /metrics
  // The operator's JSON routes and the one-off maintenance windows, on one connection.
  app::OperatorCommands* operator_commands = nullptr;
  app::OperatorQueries* operator_queries = nullptr;
  app::OneOffMaintenance* one_off = nullptr;
  const MaintenanceListing* maintenance = nullptr;  // GET /v1/maintenance's configured windows
  const core::ZoneRules* zones = nullptr;
  std::function<core::Result<app::ClusterStatus>()> status;  // GET /v1/status
  std::function<text_output::SourcesAnswer()> sources;       // GET /v1/sources
  // Ack links, chat buttons and pager webhooks, checked against the running config's secrets.
  app::OperatorCommands* callback_commands = nullptr;
  CallbackSettingsSource callbacks;
  app::PushInput* push_input = nullptr;  // POST /v1/inputs/*, /v1/observations
  const app::Latest<app::PushSettings>* push_settings = nullptr;
  SessionStore* sessions = nullptr;  // the page's logins
  bool secure_cookies = false;       // the page is served over https
};

// Every route of `quell run`'s HTTP surface (docs/http.md), in the order the server tries
// them: health, operator, maintenance, status, sources, callbacks, inputs, session, page. Which
// worker lane serves a request follows from each route's flags (OpsHttpServer): the probe
// paths their own, public routes and open reads the unauthenticated lane, the rest the token
// holders'.
std::vector<app::OpsRoute> OpsRoutes(const OpsServices& services);

}  // namespace quell::http_server
