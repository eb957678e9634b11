#pragma once

#include <memory>

#include "quell/adapters/config/config.h"
#include "quell/adapters/curl/curl_http_client.h"
#include "quell/adapters/http_server/callback_routes.h"
#include "quell/adapters/wiring/upstream_wiring.h"
#include "quell/app/health.h"
#include "quell/app/latest.h"
#include "quell/app/operator_commands.h"
#include "quell/app/operator_queries.h"
#include "quell/core/ports/clock.h"

namespace quell::wiring {

// What `quell run`'s HTTP surface takes from each config the daemon runs, at start and at every
// reload it accepts. The surface reads it per request through an app::Latest, so a reload
// moves the callback secrets, the routing of operators' and providers' resolves and the health
// limits together with the poller and the dispatcher.
struct SurfaceSettings {
  // Posts the answers to Slack clicks; null without a Slack signing secret.
  std::shared_ptr<curl::CurlHttpClient> slack_http;
  // The ack-link signer and the providers' secrets (slack_responses: slack_http).
  http_server::CallbackSettings callbacks;
  app::RouteLookup routes;  // where a resolve by hand sends its messages
  // Resolves error groups at Infrai (ResolveOptions::upstream); null when the config has no
  // Infrai error condition or no API key.
  std::shared_ptr<UpstreamWiring> upstream;
  app::ConditionSeverities severities;  // what the incident list shows beside each incident
  app::LivenessPolicy liveness;         // /healthz's limit
  core::Duration poll_lease = std::chrono::seconds(15);  // what GET /v1/status judges leases by
};

SurfaceSettings SurfaceSettingsOf(const config::Config& config, core::Clock& clock);

// Views of `latest` read at each call, for what was built once: operator commands, the
// incident list, the callback routes, the health routes. `latest` must outlive them.
app::RouteLookup LatestRoutes(const app::Latest<SurfaceSettings>& latest);
app::UpstreamLookup LatestUpstream(const app::Latest<SurfaceSettings>& latest);
std::function<std::shared_ptr<const app::ConditionSeverities>()> LatestSeverities(
    const app::Latest<SurfaceSettings>& latest);
http_server::CallbackSettingsSource LatestCallbacks(const app::Latest<SurfaceSettings>& latest);

}  // namespace quell::wiring
