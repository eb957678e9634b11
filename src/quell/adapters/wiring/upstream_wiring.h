#pragma once

#include <memory>
#include <set>
#include <string>

#include "quell/adapters/config/config.h"
#include "quell/adapters/curl/curl_http_client.h"
#include "quell/adapters/infrai/group_resolver.h"
#include "quell/adapters/infrai/infrai_client.h"
#include "quell/app/budgeted_http_client.h"
#include "quell/app/operator_commands.h"
#include "quell/app/retrying_http_client.h"
#include "quell/core/ports/clock.h"

namespace quell::wiring {

// What `incidents resolve --upstream` (and the HTTP resolve with "upstream": true) reaches:
// an Infrai client of its own, with the config's retry policy, resolving the groups of the
// config's Infrai error-group conditions. Metric conditions (Prometheus or Infrai metrics)
// cannot resolve upstream: Lookup answers null for them.
class UpstreamWiring {
 public:
  // kInvalidArgument when the config has Infrai error conditions but no API key.
  static core::Result<std::unique_ptr<UpstreamWiring>> Create(const config::Config& config,
                                                              core::Clock& clock);

  // Must not outlive this object. Each resolve gets a fresh retry budget.
  app::UpstreamLookup Lookup();

 private:
  UpstreamWiring() = default;

  curl::CurlHttpClient http_;
  std::unique_ptr<app::RetryingHttpClient> retrying_;
  std::unique_ptr<app::BudgetedHttpClient> budgeted_;
  std::unique_ptr<infrai::InfraiClient> client_;
  std::unique_ptr<infrai::InfraiGroupResolver> resolver_;
  std::set<std::string, std::less<>> conditions_;
};

}  // namespace quell::wiring
