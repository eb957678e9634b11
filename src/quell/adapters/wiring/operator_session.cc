#include "quell/adapters/wiring/operator_session.h"

#include <utility>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/wiring/route_lookup.h"
#include "quell/adapters/wiring/store_url.h"

namespace quell::wiring {

core::Result<std::unique_ptr<OperatorSession>> OpenOperatorSession(const std::string& store_url,
                                                                   const std::string& config_path,
                                                                   bool upstream,
                                                                   core::Clock& clock) {
  auto session = std::make_unique<OperatorSession>();
  std::string url = store_url;
  app::RouteLookup routes;
  if (upstream && config_path.empty()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "--upstream needs -c FILE: the config says which source each "
                           "condition reads and holds its credentials");
  }
  if (!config_path.empty()) {
    auto config = config::LoadConfig(config_path, config::ProcessEnv());
    if (!config) return core::MakeError(core::ErrorCode::kInvalidArgument, config.error().message);
    if (url.empty()) url = config->store_url;
    routes = RoutesFromConfig(*config);
    if (upstream) {
      auto wiring = UpstreamWiring::Create(*config, clock);
      if (!wiring) return wiring.error();
      session->upstream = std::move(*wiring);
    }
  }
  if (url.empty()) url = "sqlite:quell.db";
  auto store = OpenStore(url, StoreAccess::kExisting);
  if (!store) return store.error();
  session->store.emplace(std::move(*store));
  session->commands = std::make_unique<app::OperatorCommands>(session->store->incidents(),
                                                              session->store->operators(),
                                                              session->encoder, std::move(routes));
  if (session->upstream) {
    session->commands->EnableUpstream(session->store->reports(), session->upstream->Lookup());
  }
  return session;
}

}  // namespace quell::wiring
