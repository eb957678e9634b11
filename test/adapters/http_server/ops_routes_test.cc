// `quell run`'s route table as the composition builds it (http_server::OpsRoutes), over fakes
// of the store ports: every route docs/http.md names is in it, with the access that decides
// its worker lane, and it holds no route the docs do not name.
#include "quell/adapters/http_server/ops_routes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "../../app/fake_clock.h"
#include "../../app/fake_incident_store.h"
#include "../../app/fake_operator_store.h"
#include "../../app/recording_log.h"
#include "quell/adapters/http_server/ops_http_server.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/zones/date_zone_rules.h"

namespace quell::http_server {
namespace {

// Who may call a route, which is what puts a request on its worker lane (OpsHttpServer):
// a probe has a lane of its own; a public route is served to anyone, on the unauthenticated
// lane unless the request carries the token; a read needs the token (the token holders' lane)
// unless reads are open; a write always needs it.
enum class Access { kProbe, kPublic, kRead, kWrite };

struct Documented {
  std::string method;
  std::string path;  // an example of the documented path
  Access access;
};

// docs/http.md's routes ("Routes", "Sessions", "Callbacks") and operations.md's probes.
const std::vector<Documented>& DocumentedRoutes() {
  static const std::vector<Documented> routes = {
      {"GET", "/healthz", Access::kProbe},
      {"GET", "/readyz", Access::kProbe},
      {"GET", "/metrics", Access::kRead},
      {"GET", "/v1/incidents", Access::kRead},
      {"GET", "/v1/incidents/acme:db/primary", Access::kRead},
      {"GET", "/v1/incidents/acme:db/primary/timeline", Access::kRead},
      {"POST", "/v1/incidents/acme:db/primary/ack", Access::kWrite},
      {"POST", "/v1/incidents/acme:db/primary/resolve", Access::kWrite},
      {"GET", "/v1/silences", Access::kRead},
      {"POST", "/v1/silences", Access::kWrite},
      {"GET", "/v1/silences/preview", Access::kRead},
      {"DELETE", "/v1/silences/7", Access::kWrite},
      {"GET", "/v1/maintenance", Access::kRead},
      {"POST", "/v1/maintenance", Access::kWrite},
      {"POST", "/v1/maintenance/3/expire", Access::kWrite},
      {"GET", "/v1/status", Access::kRead},
      {"GET", "/v1/sources", Access::kRead},
      {"POST", "/v1/inputs/alertmanager", Access::kWrite},
      {"POST", "/v1/inputs/datadog", Access::kWrite},
      {"POST", "/v1/observations", Access::kWrite},
      {"GET", "/v1/outbox", Access::kRead},
      {"GET", "/v1/outbox/dead", Access::kRead},
      {"POST", "/v1/outbox/dead/k1:1:0:webhook/retry", Access::kWrite},
      {"DELETE", "/v1/outbox/dead/k1:1:0:webhook", Access::kWrite},
      {"GET", "/v1/groups/webhook/team=payments", Access::kRead},
      {"POST", "/v1/session", Access::kWrite},
      {"DELETE", "/v1/session", Access::kPublic},
      {"GET", "/v1/session", Access::kPublic},
      {"GET", "/", Access::kPublic},
      {"GET", "/incidents/acme:db/primary", Access::kPublic},
      {"GET", "/groups/webhook/team=payments", Access::kPublic},
      {"GET", "/outbox", Access::kPublic},
      {"GET", "/silences", Access::kPublic},
      {"GET", "/maintenance", Access::kPublic},
      {"GET", "/sources", Access::kPublic},
      {"GET", "/assets/app.js", Access::kPublic},
      {"GET", "/assets/app.css", Access::kPublic},
      {"GET", "/v1/ack/v1.abc.def", Access::kPublic},
      {"POST", "/v1/ack/v1.abc.def", Access::kPublic},
      {"POST", "/v1/pagerduty/webhook", Access::kPublic},
      {"POST", "/v1/slack/interactivity", Access::kPublic},
  };
  return routes;
}

bool Matches(const app::OpsRoute& route, const Documented& documented) {
  return route.method == documented.method &&
         std::regex_match(documented.path, std::regex(route.pattern));
}

// The page's files are one route each, documented together as GET /assets/{file}.
bool IsAsset(const app::OpsRoute& route) { return route.pattern.starts_with("^/assets/"); }

class OpsRoutesTest : public ::testing::Test {
 protected:
  OpsRoutesTest() {
    OpsServices services;
    services.clock = &clock_;
    services.log = &log_;
    services.health.clock = &clock_;
    services.operator_commands = &commands_;
    services.operator_queries = &queries_;
    services.one_off = &one_off_;
    services.maintenance = &maintenance_;
    services.zones = &zones::SystemZoneRules();
    services.status = [] { return core::Result<app::ClusterStatus>(app::ClusterStatus{}); };
    services.sources = [] { return text_output::SourcesAnswer{}; };
    services.callback_commands = &callback_commands_;
    services.callbacks = [] { return std::make_shared<const CallbackSettings>(); };
    services.push_input = &push_input_;
    services.push_settings = &push_settings_;
    services.sessions = &sessions_;
    routes_ = OpsRoutes(services);
  }

  testing::FakeClock clock_{*core::ParseRfc3339("2026-12-07T09:00:00Z")};
  testing::RecordingLog log_;
  testing::FakeIncidentStore incidents_;
  testing::FakeOperatorStore operators_;
  jsonl::JsonPayloadEncoder encoder_;
  app::OperatorCommands commands_{incidents_, operators_, encoder_};
  app::OperatorQueries queries_{incidents_, operators_};
  app::OneOffMaintenance one_off_{operators_};
  MaintenanceListing maintenance_;
  app::OperatorCommands callback_commands_{incidents_, operators_, encoder_};
  app::Latest<app::PushSettings> push_settings_;
  app::PushInput push_input_{incidents_, operators_,     encoder_,
                             clock_,     push_settings_, app::PushInputOptions{}};
  SessionStore sessions_{clock_, std::chrono::hours(12)};
  std::vector<app::OpsRoute> routes_;
};

TEST_F(OpsRoutesTest, EveryDocumentedRouteIsServedWithItsAccess) {
  const std::vector<std::string> probes = OpsServerOptions{}.probe_paths;
  for (const Documented& documented : DocumentedRoutes()) {
    SCOPED_TRACE(documented.method + " " + documented.path);
    // The server serves a request by the first route that matches it: a key may hold "/", so
    // /v1/incidents/{key}/timeline must come before /v1/incidents/{key}.
    const auto found = std::find_if(routes_.begin(), routes_.end(),
                                    [&](const app::OpsRoute& r) { return Matches(r, documented); });
    ASSERT_NE(found, routes_.end());
    const app::OpsRoute& route = *found;
    const bool probe = std::find(probes.begin(), probes.end(), documented.path) != probes.end();
    switch (documented.access) {
      case Access::kProbe:
        EXPECT_TRUE(probe) << "a probe has a worker lane of its own";
        EXPECT_TRUE(route.is_public);
        EXPECT_FALSE(route.write);
        break;
      case Access::kPublic:
        EXPECT_FALSE(probe);
        EXPECT_TRUE(route.is_public);
        EXPECT_FALSE(route.write);
        break;
      case Access::kRead:
        EXPECT_FALSE(probe);
        EXPECT_FALSE(route.is_public);
        EXPECT_FALSE(route.write);
        break;
      case Access::kWrite:
        EXPECT_FALSE(route.is_public);
        EXPECT_TRUE(route.write);
        break;
    }
  }
}

TEST_F(OpsRoutesTest, TheTableHoldsNoRouteTheDocsDoNotName) {
  size_t assets = 0;
  for (const app::OpsRoute& route : routes_) {
    SCOPED_TRACE(route.method + " " + route.pattern);
    if (IsAsset(route)) {
      ++assets;
      EXPECT_EQ(route.method, "GET");
      EXPECT_TRUE(route.is_public);
      continue;
    }
    EXPECT_TRUE(std::any_of(DocumentedRoutes().begin(), DocumentedRoutes().end(),
                            [&route](const Documented& d) { return Matches(route, d); }));
  }
  EXPECT_GT(assets, 2U);
}

}  // namespace
}  // namespace quell::http_server
