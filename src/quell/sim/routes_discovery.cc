// GET /v1/discovery and /v1/discovery/{capability} (INFRAI.md §4): public, and the index is
// served bare, not in the {ok,data} envelope, exactly as the doc example shows.
#include <httplib.h>

#include "quell/sim/catalogue.h"
#include "quell/sim/router.h"

namespace quell::sim {
namespace {

using nlohmann::json;

Reply Index(const httplib::Request&, SimState& state) {
  json capabilities = json::array();
  for (const json& c : CapabilityCatalogue()) {
    capabilities.push_back({{"id", c["id"]},
                            {"method", c["method"]},
                            {"path", c["path"]},
                            {"summary", c["summary"]},
                            {"available", c["available"]},
                            {"regions", c["regions"]},
                            {"vendors", c["vendors"]},
                            {"billing", c["billing"]}});
  }
  return Reply::Raw({{"version", "v1"},
                     {"generated_at", core::FormatRfc3339(state.clock.Now())},
                     {"capabilities", std::move(capabilities)}});
}

// [INF] the detail is bare like the index; an unknown id gets the error envelope.
Reply Detail(const httplib::Request& req, SimState&) {
  const std::string id = req.matches[1];
  for (const json& c : CapabilityCatalogue()) {
    if (c["id"] == id) return Reply::Raw(c);
  }
  return Reply::Fail(404, "NOT_FOUND", "no capability \"" + id + "\"");
}

}  // namespace

void RegisterDiscoveryRoutes(Router& router) {
  RouteInfo index{"discovery", "/v1/discovery"};
  index.requires_auth = false;
  router.Get("/v1/discovery", index, Index);
  RouteInfo detail{"discovery.detail", "/v1/discovery/{capability}"};
  detail.requires_auth = false;
  router.Get(R"(/v1/discovery/([^/]+))", detail, Detail);
}

}  // namespace quell::sim
