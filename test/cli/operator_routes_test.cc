// The operator's JSON routes, called directly as the ops server would, on a real SQLite store.
#include "quell/cli/operator_routes.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"

namespace quell::cli {
namespace {

using nlohmann::json;
using std::chrono::minutes;
using std::chrono::seconds;

class StepClock : public core::Clock {
 public:
  core::WallTime Now() override { return now; }
  void SleepFor(core::Duration d) override { now += d; }
  core::WallTime now = *core::ParseRfc3339("2026-12-02T09:00:00Z");
};

class NullSink : public app::DecisionSink {
 public:
  void OnDecision(const core::Observation&, const core::Decision&) override {}
  void Reset() override {}
};

class OperatorRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/quell-ops-routes-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    auto store = sqlite::SqliteIncidentStore::Open(dir_ + "/quell.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    store_ = std::move(*store);
    commands_ = std::make_unique<app::OperatorCommands>(*store_, *store_, encoder_);
    routes_ = OperatorRoutes(*commands_, clock_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Open(const std::string& key) {
    app::ApplyOptions options;
    options.channels = {"webhook"};
    app::PollApplier applier(*store_, encoder_, options);
    core::Observation o;
    o.key = key;
    o.at = clock_.now;
    o.health = core::Health::kUnhealthy;
    o.condition = "c";
    const std::vector<core::Observation> poll = {o};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    ASSERT_TRUE(applier.Apply(stream, "p-" + key, clock_.now, sink).ok());
  }

  // Routes the request as the server does: method and whole-path regex, groups as captures.
  app::OpsResponse Call(const std::string& method, const std::string& path,
                        const std::string& body = "", bool expect_write = false) {
    for (const app::OpsRoute& route : routes_) {
      std::smatch match;
      if (route.method != method || !std::regex_match(path, match, std::regex(route.pattern))) {
        continue;
      }
      EXPECT_EQ(route.write, expect_write) << method << " " << path;
      app::OpsRequest request;
      request.method = method;
      request.path = path;
      for (size_t i = 1; i < match.size(); ++i) request.captures.push_back(match[i].str());
      request.body = body;
      request.actor = "http-test";
      return route.handler(request);
    }
    ADD_FAILURE() << "no route for " << method << " " << path;
    return {};
  }

  static json Body(const app::OpsResponse& response) { return json::parse(response.body); }

  std::string dir_;
  StepClock clock_;
  jsonl::JsonPayloadEncoder encoder_;
  std::unique_ptr<sqlite::SqliteIncidentStore> store_;
  std::unique_ptr<app::OperatorCommands> commands_;
  std::vector<app::OpsRoute> routes_;
};

TEST_F(OperatorRoutesTest, AckAndResolveAnIncidentOverJson) {
  Open("acme:db/primary");
  app::OpsResponse list = Call("GET", "/v1/incidents", "");
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.content_type, "application/json");
  ASSERT_EQ(Body(list)["incidents"].size(), 1u);

  app::OpsResponse acked =
      Call("POST", "/v1/incidents/acme:db/primary/ack", R"({"by":"alice"})", true);
  ASSERT_EQ(acked.status, 200) << acked.body;
  EXPECT_EQ(Body(acked)["incident"]["acked_by"], "alice");
  EXPECT_EQ(Body(acked)["incident"]["acked_at"], "2026-12-02T09:00:00Z");

  clock_.SleepFor(minutes(5));
  app::OpsResponse resolved = Call("POST", "/v1/incidents/acme:db/primary/resolve", "", true);
  ASSERT_EQ(resolved.status, 200) << resolved.body;
  const json body = Body(resolved);
  EXPECT_EQ(body["incident"]["status"], "resolved");
  ASSERT_EQ(body["outbox"].size(), 1u);
  EXPECT_EQ(body["outbox"][0]["channel"], "webhook");
  EXPECT_EQ(body["outbox"][0]["status"], "pending");
  auto query = Call("GET", "/v1/incidents", "");
  EXPECT_EQ(Body(query)["incidents"][0]["status"], "resolved");

  app::OpsResponse again = Call("POST", "/v1/incidents/acme:db/primary/resolve", "", true);
  EXPECT_EQ(again.status, 409);
  EXPECT_NE(Body(again)["error"].get<std::string>().find("not open"), std::string::npos);
  app::OpsResponse unknown = Call("POST", "/v1/incidents/nope/ack", "", true);
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(Body(unknown)["error"].get<std::string>().find("nope"), std::string::npos);
  EXPECT_EQ(Call("POST", "/v1/incidents/acme:db/primary/ack", "[1]", true).status, 400);
  EXPECT_EQ(Call("POST", "/v1/incidents/acme:db/primary/ack", R"({"by":7})", true).status, 400);
}

TEST_F(OperatorRoutesTest, ResolveTakesAHoldBoundAndRefusesUpstreamItCannotReach) {
  Open("acme:db");
  const std::string path = "/v1/incidents/acme:db/resolve";
  EXPECT_EQ(Call("POST", path, R"({"for":"soon"})", true).status, 400);
  EXPECT_EQ(Call("POST", path, R"({"upstream":"yes"})", true).status, 400);
  // No source can resolve condition "c" upstream: refused, and the incident stays open.
  EXPECT_EQ(Call("POST", path, R"({"upstream":true})", true).status, 409);
  EXPECT_EQ(Body(Call("GET", "/v1/incidents", ""))["incidents"][0]["status"], "open");

  app::OpsResponse resolved = Call("POST", path, R"({"for":"30m"})", true);
  ASSERT_EQ(resolved.status, 200) << resolved.body;
  const json incident = Body(resolved)["incident"];
  EXPECT_EQ(incident["held"], true);
  EXPECT_EQ(incident["held_until"], "2026-12-02T09:30:00Z");
  EXPECT_EQ(Body(resolved)["upstream_groups"], json::array());
}

TEST_F(OperatorRoutesTest, TheActorIsWhoWhenTheBodyDoesNotSay) {
  Open("acme:db");
  app::OpsResponse acked = Call("POST", "/v1/incidents/acme:db/ack", "", true);
  ASSERT_EQ(acked.status, 200);
  EXPECT_EQ(Body(acked)["incident"]["acked_by"], "http-test");
}

TEST_F(OperatorRoutesTest, SilencesAreAddedListedAndRemoved) {
  app::OpsResponse added = Call("POST", "/v1/silences",
                                R"({"pattern":"acme:*","for":"2h","reason":"maintenance"})", true);
  ASSERT_EQ(added.status, 201) << added.body;
  const json silence = Body(added)["silence"];
  EXPECT_EQ(silence["pattern"], "acme:*");
  EXPECT_EQ(silence["expires_at"], "2026-12-02T11:00:00Z");
  EXPECT_EQ(silence["created_by"], "http-test");
  const uint64_t id = silence["id"].get<uint64_t>();

  EXPECT_EQ(Body(Call("GET", "/v1/silences"))["silences"].size(), 1u);
  clock_.SleepFor(std::chrono::hours(2));
  EXPECT_EQ(Body(Call("GET", "/v1/silences"))["silences"].size(), 0u);  // expired

  EXPECT_EQ(
      Call("POST", "/v1/silences", R"({"pattern":"a","for":"soon","reason":"r"})", true).status,
      400);
  EXPECT_EQ(Call("POST", "/v1/silences", R"({"pattern":"a","for":"1h"})", true).status, 400);
  EXPECT_EQ(Call("POST", "/v1/silences", "not json", true).status, 400);
  EXPECT_EQ(Call("DELETE", "/v1/silences/" + std::to_string(id), "", true).status, 200);
  EXPECT_EQ(Call("DELETE", "/v1/silences/" + std::to_string(id), "", true).status, 404);
  EXPECT_EQ(Call("DELETE", "/v1/silences/abc", "", true).status, 400);
}

TEST_F(OperatorRoutesTest, DeadRowsAreListedRetriedAndDropped) {
  Open("acme:db");
  Open("beta:db");
  auto claimed = store_->ClaimDue("d", clock_.now, seconds(60), 10);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 2u);
  std::vector<core::OutboxOutcome> dead(2);
  for (size_t i = 0; i < 2; ++i) {
    dead[i].kind = core::OutboxOutcome::Kind::kDead;
    dead[i].idempotency_key = (*claimed)[i].idempotency_key;
    dead[i].error = "HTTP 400";
  }
  ASSERT_TRUE(store_->RecordOutcomes("d", dead, clock_.now).ok());

  app::OpsResponse list = Call("GET", "/v1/outbox/dead");
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(Body(list)["rows"].size(), 2u);
  EXPECT_EQ(Body(list)["rows"][0]["last_error"], "HTTP 400");

  const std::string a = (*claimed)[0].idempotency_key;
  const std::string b = (*claimed)[1].idempotency_key;
  app::OpsResponse retried = Call("POST", "/v1/outbox/dead/" + a + "/retry", "", true);
  ASSERT_EQ(retried.status, 200) << retried.body;
  EXPECT_EQ(Body(retried)["status"], "pending");
  app::OpsResponse dropped = Call("DELETE", "/v1/outbox/dead/" + b, "", true);
  ASSERT_EQ(dropped.status, 200) << dropped.body;
  EXPECT_EQ(Body(dropped)["status"], "dropped");
  EXPECT_EQ(Body(Call("GET", "/v1/outbox/dead"))["rows"].size(), 0u);

  EXPECT_EQ(Call("POST", "/v1/outbox/dead/" + a + "/retry", "", true).status, 409);
  EXPECT_EQ(Call("DELETE", "/v1/outbox/dead/q1-none", "", true).status, 404);
  auto again = store_->ClaimDue("d2", clock_.now, seconds(60), 10);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].idempotency_key, a);
}

}  // namespace
}  // namespace quell::cli
