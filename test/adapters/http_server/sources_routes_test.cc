// GET /v1/sources through the ops server on a real loopback port: the catalog built from a
// config file loaded as `quell run` loads it, a cycle heard by app::LastCycles, no store.
#include "quell/adapters/http_server/sources_routes.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/http_server/ops_http_server.h"
#include "quell/adapters/wiring/source_catalog_of.h"

namespace quell::http_server {
namespace sources_routes_test {

using nlohmann::json;

constexpr const char* kToken = "sources-reader-token-0123";

// Two error conditions on Infrai (its base URL carrying a credential the page must not show)
// and a metric condition on Prometheus.
constexpr const char* kConfig = R"(store: sqlite:unused.db
infrai:
  base_url: https://robot:s3cret@api.infrai.example/v1?key=abc#frag
  api_key_env: KEY
prometheus: {url: "http://127.0.0.1:9090"}
defaults: {interval: 1m, channels: [hook]}
channels:
  - {name: hook, type: webhook, url: "http://127.0.0.1:9/x", signing: "off"}
conditions:
  - {name: checkout, type: error_groups, key: "{tenant}:{error_group_id}"}
  - name: latency
    type: prometheus
    query: max by (tenant) (model_answer_latency_p99_seconds)
    key: "{tenant}:latency"
    above: 2
    interval: 30s
    shadow: true
  - {name: refunds, type: error_groups, key: "{tenant}:{error_group_id}"}
)";

class SourcesRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("quell-sources-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    const auto path = dir_ / "quell.yaml";
    std::ofstream(path) << kConfig;
    auto config = config::LoadConfig(path.string(), [](std::string_view name) {
      return name == "KEY" ? std::optional<std::string>("ifr_test") : std::nullopt;
    });
    ASSERT_TRUE(config.ok()) << config.error().message;
    catalog_ = wiring::SourceCatalogOf(*config);
    OpsServerOptions options;
    options.token = kToken;
    server_ = std::make_unique<OpsHttpServer>(options, SourcesRoutes([this] {
                                                text_output::SourcesAnswer answer;
                                                answer.now =
                                                    *core::ParseRfc3339("2026-12-04T12:00:00Z");
                                                answer.instance = "web-1:7:ab";
                                                answer.catalog = catalog_;
                                                answer.last_cycles = cycles_.Snapshot();
                                                answer.heartbeat_configured = true;
                                                answer.heartbeat.sent = 4;
                                                answer.heartbeat.last_at = answer.now;
                                                answer.heartbeat.last_ok = true;
                                                return answer;
                                              }));
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }
  json Get() {
    auto res = client_->Get("/v1/sources", {{"Authorization", std::string("Bearer ") + kToken}});
    EXPECT_TRUE(res);
    if (!res) return json();
    EXPECT_EQ(res->status, 200) << res->body;
    return json::parse(res->body);
  }

  std::filesystem::path dir_;
  app::SourceCatalog catalog_;
  app::LastCycles cycles_;
  std::unique_ptr<OpsHttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(SourcesRoutesTest, ListsSourcesWithoutCredentialsThenTheConditions) {
  const json answer = Get();
  EXPECT_EQ(answer["now"], "2026-12-04T12:00:00Z");
  EXPECT_EQ(answer["instance"], "web-1:7:ab");
  ASSERT_EQ(answer["sources"].size(), 2u);
  EXPECT_EQ(answer["sources"][0], (json{{"name", "infrai error groups"},
                                        {"type", "infrai"},
                                        {"base_url", "https://api.infrai.example/v1"},
                                        {"conditions", {"checkout", "refunds"}}}));
  EXPECT_EQ(answer["sources"][1]["name"], "prometheus");
  EXPECT_EQ(answer["sources"][1]["base_url"], "http://127.0.0.1:9090");
  ASSERT_EQ(answer["conditions"].size(), 3u);
  EXPECT_EQ(answer["conditions"][1]["name"], "refunds");
  EXPECT_EQ(answer["conditions"][2], (json{{"name", "latency"},
                                           {"source", "prometheus"},
                                           {"interval", "30s"},
                                           {"shadow", true},
                                           {"last_cycle", nullptr}}));
  EXPECT_EQ(answer["heartbeat"], (json{{"configured", true},
                                       {"last_ping_at", "2026-12-04T12:00:00Z"},
                                       {"last_ok", true},
                                       {"sent", 4},
                                       {"failed", 0},
                                       {"dropped", 0}}));
  const std::string body =
      client_->Get("/v1/sources", {{"Authorization", std::string("Bearer ") + kToken}})->body;
  EXPECT_EQ(body.find("s3cret"), std::string::npos);
  EXPECT_EQ(body.find("key=abc"), std::string::npos);
}

TEST_F(SourcesRoutesTest, ACycleShowsAsEachConditionsLastCycle) {
  app::CycleReport report;
  report.at = *core::ParseRfc3339("2026-12-04T11:59:30Z");
  app::ConditionOutcome& failed = report.conditions.emplace_back();
  failed.condition = "checkout";
  failed.source = "infrai error groups";
  failed.source_ok = false;
  failed.source_error = "GET /v1/errors/groups: HTTP 503";
  failed.applied = true;
  failed.observations = 2;
  cycles_.OnCycleEnd("run-1", report, report.at);
  const json answer = Get();
  EXPECT_EQ(answer["conditions"][0]["last_cycle"],
            (json{{"at", "2026-12-04T11:59:30Z"},
                  {"source_ok", false},
                  {"source_error", "GET /v1/errors/groups: HTTP 503"},
                  {"applied", true},
                  {"apply_error", ""},
                  {"observations", 2}}));
  EXPECT_EQ(answer["conditions"][2]["last_cycle"], nullptr);
}

TEST_F(SourcesRoutesTest, NeedsTheTokenToRead) {
  auto res = client_->Get("/v1/sources");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
}

}  // namespace sources_routes_test
}  // namespace quell::http_server
