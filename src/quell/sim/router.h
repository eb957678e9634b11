#pragma once

#include <functional>
#include <string>

#include "quell/sim/envelope.h"
#include "quell/sim/state.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace quell::sim {

// How the router treats one route.
struct RouteInfo {
  std::string capability;  // discovery id, e.g. "errors.groups"; faults match on it
  std::string templ;       // "/v1/errors/group_detail/{error_group_id}", for the request log
  bool requires_auth = true;
  bool admin = false;  // /_sim/...: no auth, no faults, no envelope
  bool poll = false;   // a first-page request counts as one poll of the scenario timeline
  double cost_usd = 0;
};

// Runs with SimState::mu held. Must not block.
using Handler = std::function<Reply(const httplib::Request&, SimState&)>;

// Registers handlers on an httplib::Server and runs every request through the same pipeline:
// request log, timeline, auth, faults, idempotent replay, envelope, output faults. Exceptions
// from handlers, httplib or nlohmann become a 500 envelope and never escape.
class Router {
 public:
  Router(httplib::Server& server, SimState& state) : server_(server), state_(state) {}

  void Get(const std::string& pattern, RouteInfo info, Handler handler);
  void Post(const std::string& pattern, RouteInfo info, Handler handler);
  void Delete(const std::string& pattern, RouteInfo info, Handler handler);

 private:
  void Serve(const RouteInfo& info, const Handler& handler, const httplib::Request& req,
             httplib::Response& res);

  httplib::Server& server_;
  SimState& state_;
};

// The page (1-based) a listing request asks for, from its cursor; 1 without one.
int64_t PageOfCursor(const std::string& cursor);

// Registration of each route family (routes_*.cc).
void RegisterErrorRoutes(Router& router);
void RegisterMetricRoutes(Router& router);
void RegisterLogRoutes(Router& router);
void RegisterDiscoveryRoutes(Router& router);
void RegisterAdminRoutes(Router& router);

}  // namespace quell::sim
