#include "quell/adapters/http_server/status_routes.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "quell/adapters/text_output/cluster_status_text.h"

namespace quell::http_server {

std::vector<app::OpsRoute> StatusRoutes(std::function<core::Result<app::ClusterStatus>()> read) {
  app::OpsHandler handler = [read = std::move(read)](const app::OpsRequest&) {
    app::OpsResponse response;
    auto status = read();
    if (!status) {
      response.status = 503;
      response.body =
          nlohmann::json{{"error", {{"code", "unavailable"}, {"message", status.error().message}}}}
              .dump();
      return response;
    }
    response.body = text_output::ClusterStatusJson(*status);
    return response;
  };
  std::vector<app::OpsRoute> routes;
  routes.push_back(app::OpsRoute{"GET", "^/v1/status$", /*write=*/false, std::move(handler)});
  return routes;
}

}  // namespace quell::http_server
