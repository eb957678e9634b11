#include "quell/adapters/http_server/sources_routes.h"

#include <utility>

namespace quell::http_server {

std::vector<app::OpsRoute> SourcesRoutes(std::function<text_output::SourcesAnswer()> read) {
  app::OpsHandler handler = [read = std::move(read)](const app::OpsRequest&) {
    app::OpsResponse response;
    response.body = text_output::SourcesJson(read());
    return response;
  };
  std::vector<app::OpsRoute> routes;
  routes.push_back(app::OpsRoute{"GET", "^/v1/sources$", /*write=*/false, std::move(handler)});
  return routes;
}

}  // namespace quell::http_server
