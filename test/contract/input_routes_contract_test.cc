// The push inputs (POST /v1/inputs/alertmanager, POST /v1/observations) through the ops server
// on a real loopback port, with the bearer token, applied on SQLite and PostgreSQL.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "../app/fake_clock.h"
#include "quell/adapters/http_server/input_routes.h"
#include "quell/adapters/http_server/ops_http_server.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/app/push_input.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using nlohmann::json;

constexpr const char* kToken = "push-input-token-0123456789";

core::PushCondition Push(const std::string& name, uint32_t healthy_polls_to_close) {
  core::PushCondition c;
  c.common.name = name;
  c.common.channels = {"hook"};
  c.common.policy.healthy_polls_to_close = healthy_polls_to_close;
  c.key = *core::KeyTemplate::Parse("{labels.tenant|no-tenant}:{labels.alertname}");
  return c;
}

// An Alertmanager webhook payload (version 4) with one alert per (tenant, alertname, status).
std::string Payload(const std::vector<std::vector<std::string>>& alerts) {
  json list = json::array();
  for (const auto& a : alerts) {
    list.push_back({{"status", a[2]},
                    {"labels", {{"tenant", a[0]}, {"alertname", a[1]}, {"severity", "critical"}}},
                    {"annotations", {{"summary", "disk full on " + a[0]}}},
                    {"startsAt", "2026-12-02T08:55:00.123456789Z"},
                    {"endsAt", "0001-01-01T00:00:00Z"},
                    {"generatorURL", "http://prometheus:9090/graph?g0.expr=up"},
                    {"fingerprint", "c6eadffa33fcdf37"}});
  }
  return json{{"version", "4"},
              {"receiver", "quell"},
              {"status", "firing"},
              {"alerts", list},
              {"groupLabels", json::object()},
              {"commonLabels", json::object()},
              {"externalURL", "http://am:9093"},
              {"groupKey", "{}:{}"},
              {"truncatedAlerts", 0}}
      .dump();
}

class InputRoutesTest : public StoreTest {
 protected:
  void SetUpStore() override {
    if (GetParam() == Backend::kSqlite) {
      // A short busy timeout, so a store locked by another process answers 503 quickly.
      auto store = sqlite::SqliteIncidentStore::Open(
          test_store_->url().substr(7), {.busy_timeout = std::chrono::milliseconds(300)});
      ASSERT_TRUE(store.ok()) << store.error().message;
      push_store_.emplace(std::move(*store));
    } else {
      Connect(push_store_);
    }
    app::PushSettings settings;
    settings.conditions = {Push("prom-alerts", 2)};
    settings_.Set(settings);
    input_ = std::make_unique<app::PushInput>(
        push_store_->incidents(), push_store_->operators(), encoder_, clock_, settings_,
        app::PushInputOptions{.unique_suffix = [this] { return std::to_string(++suffix_); }});
    http_server::OpsServerOptions options;
    options.token = kToken;
    server_ = std::make_unique<http_server::OpsHttpServer>(
        std::move(options), http_server::InputRoutes(*input_, settings_, clock_));
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  httplib::Result Post(const std::string& path, const std::string& body, bool token = true) {
    clock_.Advance(std::chrono::minutes(1));  // each request is a later observation
    httplib::Headers headers;
    if (token) headers.emplace("Authorization", std::string("Bearer ") + kToken);
    return client_->Post(path, headers, body, "application/json");
  }

  std::optional<core::Incident> Find(const std::string& key) {
    auto found = store_->incidents().FindIncident(key);
    EXPECT_TRUE(found.ok()) << found.error().message;
    return found.ok() ? *found : std::nullopt;
  }
  std::string Count(const std::string& table) {
    return test_store_->Query("SELECT count(*) FROM " + table);
  }

  testing::FakeClock clock_{*core::ParseRfc3339("2026-12-02T09:00:00Z")};
  std::optional<core::Store> push_store_;
  jsonl::JsonPayloadEncoder encoder_;
  app::Latest<app::PushSettings> settings_;
  std::unique_ptr<app::PushInput> input_;
  std::unique_ptr<http_server::OpsHttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
  int suffix_ = 0;
};

TEST_P(InputRoutesTest, AlertmanagerFiringOpensByLabelsAndResolvedTwiceResolves) {
  auto opened = Post("/v1/inputs/alertmanager", Payload({{"acme", "DiskFull", "firing"}}));
  ASSERT_TRUE(opened);
  ASSERT_EQ(opened->status, 200) << opened->body;
  const json answer = json::parse(opened->body);
  EXPECT_EQ(answer["condition"], "prom-alerts");
  EXPECT_EQ(answer["observations"], 1);
  EXPECT_EQ(answer["duplicate"], false);
  EXPECT_EQ(answer["outbox_rows"], 1);
  ASSERT_EQ(answer["decisions"].size(), 1u);
  EXPECT_EQ(answer["decisions"][0]["key"], "acme:DiskFull");
  EXPECT_EQ(answer["decisions"][0]["decision"], "notify");
  EXPECT_EQ(answer["decisions"][0]["reason"], "open");
  EXPECT_TRUE(answer["poll_id"].get<std::string>().starts_with("push-")) << answer["poll_id"];

  auto incident = Find("acme:DiskFull");
  ASSERT_TRUE(incident);
  EXPECT_EQ(incident->status, core::IncidentStatus::kOpen);
  EXPECT_EQ(incident->condition, "prom-alerts");
  EXPECT_EQ(core::FindLabel(incident->labels, "severity"), "critical");
  ASSERT_FALSE(incident->recent_evidence.empty());
  const json evidence = json::parse(incident->recent_evidence.back());
  EXPECT_EQ(evidence["annotations"]["summary"], "disk full on acme");
  EXPECT_EQ(evidence["fingerprint"], "c6eadffa33fcdf37");
  EXPECT_EQ(Count("outbox"), "1");

  auto first = Post("/v1/inputs/alertmanager", Payload({{"acme", "DiskFull", "resolved"}}));
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  EXPECT_EQ(json::parse(first->body)["decisions"][0]["decision"], "wait_for_health");
  EXPECT_EQ(Find("acme:DiskFull")->status, core::IncidentStatus::kOpen);  // one healthy of two
  auto second = Post("/v1/inputs/alertmanager", Payload({{"acme", "DiskFull", "resolved"}}));
  ASSERT_TRUE(second);
  ASSERT_EQ(second->status, 200) << second->body;
  EXPECT_EQ(json::parse(second->body)["decisions"][0]["decision"], "resolve");
  EXPECT_EQ(Find("acme:DiskFull")->status, core::IncidentStatus::kResolved);
  EXPECT_EQ(Count("outbox"), "2");  // the open and the resolve
}

TEST_P(InputRoutesTest, BadPayloadsNameTheFieldAndStoreNothing) {
  json payload = json::parse(Payload({{"acme", "A", "firing"}, {"acme", "B", "firing"}}));
  payload["alerts"][1]["labels"]["team"] = 7;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {payload.dump(), "alerts[1].labels.team: must be a string"},
      {"{\"alerts\":[{\"status\":\"firing\"}]}", "alerts[0].labels: missing"},
      {"{\"alerts\":[{\"status\":\"pending\",\"labels\":{}}]}", "alerts[0].status:"},
      {"{\"alerts\":[{\"status\":\"firing\",\"labels\":{},\"startsAt\":\"yesterday\"}]}",
       "alerts[0].startsAt:"},
      {"{\"alerts\":{}}", "alerts: must be an array"},
      {"{\"alerts\":[", "body: bad JSON"},
      {"", "body: bad JSON"},
  };
  for (const auto& [body, message] : cases) {
    auto res = Post("/v1/inputs/alertmanager", body);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << body;
    const json error = json::parse(res->body)["error"];
    EXPECT_EQ(error["code"], "invalid_argument");
    EXPECT_TRUE(error["message"].get<std::string>().starts_with(message))
        << error["message"] << " for " << body;
  }
  EXPECT_EQ(Count("incidents"), "0");
  EXPECT_EQ(Count("outbox"), "0");
  EXPECT_EQ(Count("polls"), "0");
}

// Filed as "tenant-03:-" before, an alert missing a key label shared one key with every such
// alert and, with `equal: [tenant]` inhibition, held back the whole tenant.
TEST_P(InputRoutesTest, AnAlertMissingAKeyLabelIs400NamingTheLabelAndNothingIsApplied) {
  app::PushSettings settings;
  settings.conditions = {Push("prom-alerts", 2)};
  settings.conditions[0].key = *core::KeyTemplate::Parse("{labels.tenant}:{labels.alertname}");
  settings_.Set(settings);
  json payload = json::parse(Payload({{"tenant-01", "DiskFull", "firing"},
                                      {"tenant-02", "DiskFull", "firing"},
                                      {"tenant-03", "Up", "firing"}}));
  payload["alerts"][2]["labels"].erase("alertname");
  auto res = Post("/v1/inputs/alertmanager", payload.dump());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400) << res->body;
  const json error = json::parse(res->body)["error"];
  EXPECT_EQ(error["code"], "invalid_argument");
  EXPECT_EQ(error["message"],
            "alerts[2].labels.alertname: missing, the key template "
            "\"{labels.tenant}:{labels.alertname}\" needs it");
  EXPECT_EQ(Count("incidents"), "0");  // not even the two good alerts of the request
  EXPECT_EQ(Count("outbox"), "0");
  EXPECT_EQ(Count("polls"), "0");

  // quell's own observations without a key: the same rule over their labels.
  auto obs = Post("/v1/observations",
                  R"({"at":"2026-12-02T09:00:30Z","unhealthy":true,"condition":"prom-alerts",)"
                  R"("labels":{"alertname":"Up"}})");
  ASSERT_TRUE(obs);
  EXPECT_EQ(obs->status, 400) << obs->body;
  EXPECT_TRUE(json::parse(obs->body)["error"]["message"].get<std::string>().starts_with(
      "observations[0].labels.tenant: missing, the key template"))
      << obs->body;
  EXPECT_EQ(Count("incidents"), "0");
}

TEST_P(InputRoutesTest, WithoutTheTokenBothRoutesAnswer401AndStoreNothing) {
  auto am = Post("/v1/inputs/alertmanager", Payload({{"acme", "DiskFull", "firing"}}), false);
  ASSERT_TRUE(am);
  EXPECT_EQ(am->status, 401);
  auto obs = Post("/v1/observations",
                  R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":true,)"
                  R"("condition":"prom-alerts"})",
                  false);
  ASSERT_TRUE(obs);
  EXPECT_EQ(obs->status, 401);
  EXPECT_EQ(Count("incidents"), "0");
  EXPECT_EQ(Count("polls"), "0");
}

TEST_P(InputRoutesTest, AnUnknownOrUnnamedConditionIs400NamingCondition) {
  auto unknown =
      Post("/v1/inputs/alertmanager?condition=nope", Payload({{"acme", "DiskFull", "firing"}}));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 400);
  EXPECT_TRUE(json::parse(unknown->body)["error"]["message"].get<std::string>().starts_with(
      "condition: no push condition named \"nope\""))
      << unknown->body;

  app::PushSettings two;
  two.conditions = {Push("prom-alerts", 2), Push("grafana", 1)};
  settings_.Set(two);  // a reload: the routes follow it
  auto unnamed = Post("/v1/inputs/alertmanager", Payload({{"acme", "DiskFull", "firing"}}));
  ASSERT_TRUE(unnamed);
  EXPECT_EQ(unnamed->status, 400);
  EXPECT_TRUE(
      json::parse(unnamed->body)["error"]["message"].get<std::string>().starts_with("condition:"))
      << unnamed->body;
  auto named =
      Post("/v1/inputs/alertmanager?condition=grafana", Payload({{"acme", "DiskFull", "firing"}}));
  ASSERT_TRUE(named);
  EXPECT_EQ(named->status, 200) << named->body;
  EXPECT_EQ(Find("acme:DiskFull")->condition, "grafana");
}

TEST_P(InputRoutesTest, ObservationsMixingConditionsAreRefusedWhole) {
  app::PushSettings two;
  two.conditions = {Push("prom-alerts", 2), Push("other", 1)};
  settings_.Set(two);
  const std::string body =
      R"({"at":"2026-12-02T09:00:00Z","key":"a","unhealthy":true,"condition":"prom-alerts"})"
      "\n"
      R"({"at":"2026-12-02T09:00:00Z","key":"b","unhealthy":true,"condition":"other"})"
      "\n";
  auto res = Post("/v1/observations", body);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_TRUE(json::parse(res->body)["error"]["message"].get<std::string>().starts_with(
      "observations[1].condition: \"other\" differs"))
      << res->body;
  auto not_push =
      Post("/v1/observations", R"([{"at":"2026-12-02T09:00:00Z","key":"a","unhealthy":true,)"
                               R"("condition":"errors"}])");
  ASSERT_TRUE(not_push);
  EXPECT_EQ(not_push->status, 400);
  EXPECT_TRUE(json::parse(not_push->body)["error"]["message"].get<std::string>().starts_with(
      "observations[0].condition: no push condition named \"errors\""))
      << not_push->body;
  EXPECT_EQ(Count("incidents"), "0");
}

TEST_P(InputRoutesTest, ObservationsRenderAMissingKeyFromLabelsInEachForm) {
  const std::string one =
      R"({"at":"2026-12-02T09:00:30Z","unhealthy":true,"condition":"prom-alerts",)"
      R"("labels":{"tenant":"acme","alertname":"Up"},"evidence":{"api_key":"hunter2"}})";
  auto res = Post("/v1/observations", one);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(json::parse(res->body)["decisions"][0]["key"], "acme:Up");
  auto incident = Find("acme:Up");
  ASSERT_TRUE(incident);
  EXPECT_EQ(incident->recent_evidence.back().find("hunter2"), std::string::npos);

  auto array = Post("/v1/observations",
                    R"([{"at":"2026-12-02T09:01:30Z","key":"k1","unhealthy":true,)"
                    R"("condition":"prom-alerts"},{"at":"2026-12-02T09:01:30Z","key":"k2",)"
                    R"("unhealthy":false,"condition":"prom-alerts"}])");
  ASSERT_TRUE(array);
  ASSERT_EQ(array->status, 200) << array->body;
  EXPECT_EQ(json::parse(array->body)["observations"], 2);
  EXPECT_EQ(Find("k1")->status, core::IncidentStatus::kOpen);
  EXPECT_FALSE(Find("k2"));  // healthy and never seen failing: no row
}

TEST_P(InputRoutesTest, ARetriedPostWithItsPollIdChangesNothing) {
  const std::string body = R"({"at":"2026-12-02T09:00:30Z","key":"acme:Up","unhealthy":true,)"
                           R"("condition":"prom-alerts"})";
  auto first = Post("/v1/observations?poll_id=am-flush-1", body);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  EXPECT_EQ(json::parse(first->body)["poll_id"], "am-flush-1");
  EXPECT_EQ(json::parse(first->body)["duplicate"], false);
  const std::string decisions = Count("decisions");
  const std::string outbox = Count("outbox");
  const uint64_t version = Find("acme:Up")->version;

  const std::string healthy = R"({"at":"2026-12-02T09:01:30Z","key":"acme:Up","unhealthy":false,)"
                              R"("condition":"prom-alerts"})";
  for (int i = 0; i < 2; ++i) {
    auto retry = Post("/v1/observations?poll_id=am-flush-1", i == 0 ? body : healthy);
    ASSERT_TRUE(retry);
    ASSERT_EQ(retry->status, 200) << retry->body;
    const json answer = json::parse(retry->body);
    EXPECT_EQ(answer["duplicate"], true);
    EXPECT_EQ(answer["changed"], 0);
    EXPECT_TRUE(answer["decisions"].empty());
  }
  EXPECT_EQ(Count("decisions"), decisions);
  EXPECT_EQ(Count("outbox"), outbox);
  EXPECT_EQ(Count("polls"), "1");
  EXPECT_EQ(Find("acme:Up")->version, version);

  auto bad_id = Post("/v1/observations?poll_id=has%20space", body);
  ASSERT_TRUE(bad_id);
  EXPECT_EQ(bad_id->status, 400);
  EXPECT_TRUE(
      json::parse(bad_id->body)["error"]["message"].get<std::string>().starts_with("poll_id:"));
}

// SQLite only: another process's write lock stands in for any store that cannot take a write.
class InputRoutesSqliteTest : public InputRoutesTest {};

TEST_P(InputRoutesSqliteTest, AStoreThatCannotTakeTheWriteIs503WithRetryAfterAndNothingApplied) {
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(test_store_->url().substr(7).c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto locked = Post("/v1/inputs/alertmanager", Payload({{"acme", "DiskFull", "firing"}}));
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  ASSERT_TRUE(locked);
  EXPECT_EQ(locked->status, 503) << locked->body;
  EXPECT_EQ(locked->get_header_value("Retry-After"), "5");
  EXPECT_EQ(json::parse(locked->body)["error"]["code"], "unavailable");
  EXPECT_EQ(Count("incidents"), "0");
  EXPECT_EQ(Count("polls"), "0");
  auto retried = Post("/v1/inputs/alertmanager", Payload({{"acme", "DiskFull", "firing"}}));
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->status, 200) << retried->body;
  EXPECT_EQ(Find("acme:DiskFull")->status, core::IncidentStatus::kOpen);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, InputRoutesTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, InputRoutesTest, ::testing::Values(Backend::kPostgres));
INSTANTIATE_TEST_SUITE_P(Sqlite, InputRoutesSqliteTest, ::testing::Values(Backend::kSqlite));

}  // namespace
}  // namespace quell::testing
