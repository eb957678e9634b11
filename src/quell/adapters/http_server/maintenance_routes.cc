#include "quell/adapters/http_server/maintenance_routes.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "quell/adapters/text_output/maintenance_json.h"

namespace quell::http_server {

std::vector<app::OpsRoute> MaintenanceRoutes(const MaintenanceListing& listing,
                                             const core::ZoneRules& zones, core::Clock& clock) {
  app::OpsHandler list = [&listing, &zones, &clock](const app::OpsRequest&) {
    const std::shared_ptr<const std::vector<core::MaintenanceWindow>> configured = listing.Get();
    const core::WallTime now = clock.Now();
    app::OpsResponse response;
    // The writer's objects verbatim, so the fields come in the CLI's order.
    std::string listed;
    for (const core::MaintenanceWindow& window : *configured) {
      auto object = text_output::MaintenanceWindowJson(window, zones, now);
      if (!object) {
        response.status = 500;
        response.body = nlohmann::json{{"error",
                                        {{"code", "internal"},
                                         {"message", window.name + ": " + object.error().message}}}}
                            .dump();
        return response;
      }
      if (!listed.empty()) listed += ',';
      listed += *object;
    }
    response.body = "{\"windows\":[" + listed + "]}";
    return response;
  };
  std::vector<app::OpsRoute> routes;
  routes.push_back(app::OpsRoute{"GET", "^/v1/maintenance$", /*write=*/false, std::move(list)});
  return routes;
}

}  // namespace quell::http_server
