#include "quell/adapters/http_server/ops_routes.h"

#include <iterator>
#include <utility>

#include "quell/adapters/http_server/input_routes.h"
#include "quell/adapters/http_server/operator_routes.h"
#include "quell/adapters/http_server/page_routes.h"
#include "quell/adapters/http_server/session_routes.h"
#include "quell/adapters/http_server/sources_routes.h"
#include "quell/adapters/http_server/status_routes.h"

namespace quell::http_server {
namespace {

void Append(std::vector<app::OpsRoute>& routes, std::vector<app::OpsRoute> more) {
  routes.insert(routes.end(), std::make_move_iterator(more.begin()),
                std::make_move_iterator(more.end()));
}

}  // namespace

std::vector<app::OpsRoute> OpsRoutes(const OpsServices& services) {
  core::Clock& clock = *services.clock;
  core::EventLog& log = *services.log;
  std::vector<app::OpsRoute> routes = app::HealthRoutes(services.health);
  Append(routes,
         OperatorRoutes(*services.operator_commands, *services.operator_queries, clock, log));
  Append(routes,
         MaintenanceRoutes(*services.maintenance, *services.zones, clock, services.one_off, &log));
  Append(routes, StatusRoutes(services.status));
  Append(routes, SourcesRoutes(services.sources));
  Append(routes, CallbackRoutes(*services.callback_commands, clock, log, services.callbacks));
  Append(routes, InputRoutes(*services.push_input, *services.push_settings, clock, &log));
  Append(routes, SessionRoutes(*services.sessions, services.secure_cookies, log));
  // The operator page: public files that read the JSON routes above with the token.
  Append(routes, PageRoutes());
  return routes;
}

}  // namespace quell::http_server
