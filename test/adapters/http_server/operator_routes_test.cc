// The operator's JSON routes, called directly as the ops server would, on a real SQLite store.
#include "quell/adapters/http_server/operator_routes.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "../../app/fake_clock.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/delivery/group_plan.h"

namespace quell::http_server {
namespace {

using nlohmann::json;
using std::chrono::minutes;
using std::chrono::seconds;

// Every event the routes log, kept in order.
class RecordingLog : public core::EventLog {
 public:
  struct Line {
    core::LogLevel level;
    std::string event;
    std::map<std::string, std::string> fields;
  };
  void Log(core::LogLevel level, std::string_view event,
           std::initializer_list<core::LogField> fields) override {
    Line line{level, std::string(event), {}};
    for (const core::LogField& f : fields) line.fields[std::string(f.name)] = std::string(f.value);
    lines.push_back(std::move(line));
  }
  std::vector<Line> lines;
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
    queries_ = std::make_unique<app::OperatorQueries>(*store_, *store_);
    routes_ = OperatorRoutes(*commands_, *queries_, clock_, log_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Open(const std::string& key, const std::string& condition = "c") {
    Observe(key, condition, true);
  }
  void Observe(const std::string& key, const std::string& condition, bool unhealthy) {
    app::ApplyOptions options;
    options.channels = {"webhook"};
    app::PollApplier applier(*store_, encoder_, options);
    core::Observation o;
    o.key = key;
    o.at = clock_.Now();
    o.health = unhealthy ? core::Health::kUnhealthy : core::Health::kHealthy;
    o.condition = condition;
    o.labels = {{"tenant", "acme"}};
    o.upstream_count = 12;
    const std::vector<core::Observation> poll = {o};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    ASSERT_TRUE(
        applier
            .Apply(stream, "p-" + key + "-" + core::FormatRfc3339(clock_.Now()), clock_.Now(), sink)
            .ok());
  }

  // Routes the request as the server does: method and whole-path regex, groups as captures.
  app::OpsResponse Call(const std::string& method, const std::string& path,
                        const std::string& body = "", bool expect_write = false,
                        const std::map<std::string, std::string>& query = {}) {
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
      request.query = query;
      request.actor = "http-test";
      return route.handler(request);
    }
    ADD_FAILURE() << "no route for " << method << " " << path;
    return {};
  }

  static json Body(const app::OpsResponse& response) { return json::parse(response.body); }

  std::string dir_;
  testing::FakeClock clock_{*core::ParseRfc3339("2026-12-02T09:00:00Z")};
  jsonl::JsonPayloadEncoder encoder_;
  std::unique_ptr<sqlite::SqliteIncidentStore> store_;
  std::unique_ptr<app::OperatorCommands> commands_;
  std::unique_ptr<app::OperatorQueries> queries_;
  RecordingLog log_;
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
  EXPECT_EQ(Body(again)["error"]["code"], "conflict");
  EXPECT_NE(Body(again)["error"]["message"].get<std::string>().find("not open"), std::string::npos);
  app::OpsResponse unknown = Call("POST", "/v1/incidents/nope/ack", "", true);
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(Body(unknown)["error"]["code"], "not_found");
  EXPECT_NE(Body(unknown)["error"]["message"].get<std::string>().find("nope"), std::string::npos);
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

// A pushed alert labelled `*` has the key `*:*`. Silenced by its key, as the page's "Silence
// this incident" does, that incident alone is silenced.
TEST_F(OperatorRoutesTest, AnExactSilenceOfAKeyHoldingAStarSilencesThatIncidentOnly) {
  Open("*:*");
  Open("acme:db");
  app::OpsResponse added =
      Call("POST", "/v1/silences", R"({"key":"*:*","for":"1h","reason":"noisy alert"})", true);
  ASSERT_EQ(added.status, 201) << added.body;
  const json silence = Body(added)["silence"];
  EXPECT_EQ(silence["match"], "exact");
  EXPECT_EQ(silence["key"], "*:*");
  EXPECT_FALSE(silence.contains("pattern")) << silence;
  EXPECT_EQ(Body(Call("GET", "/v1/silences"))["silences"][0]["match"], "exact");

  app::OpsResponse star = Call("POST", "/v1/incidents/*:*/resolve", "", true);
  ASSERT_EQ(star.status, 200) << star.body;
  ASSERT_EQ(Body(star)["outbox"].size(), 1u);
  EXPECT_EQ(Body(star)["outbox"][0]["status"], "silenced");
  app::OpsResponse other = Call("POST", "/v1/incidents/acme:db/resolve", "", true);
  ASSERT_EQ(other.status, 200) << other.body;
  ASSERT_EQ(Body(other)["outbox"].size(), 1u);
  EXPECT_EQ(Body(other)["outbox"][0]["status"], "pending");
  EXPECT_EQ(log_.lines.front().fields.at("key"), "*:*");
}

// "pattern" keeps what it always meant for API clients: a glob.
TEST_F(OperatorRoutesTest, ASilenceTakesAKeyOrAPatternAndAPatternIsAGlob) {
  Open("acme:db");
  app::OpsResponse added =
      Call("POST", "/v1/silences",
           R"({"pattern":"*:*","match":"glob","for":"1h","reason":"everything"})", true);
  ASSERT_EQ(added.status, 201) << added.body;
  EXPECT_EQ(Body(added)["silence"]["match"], "glob");
  EXPECT_EQ(Body(added)["silence"]["pattern"], "*:*");
  app::OpsResponse resolved = Call("POST", "/v1/incidents/acme:db/resolve", "", true);
  ASSERT_EQ(resolved.status, 200) << resolved.body;
  EXPECT_EQ(Body(resolved)["outbox"][0]["status"], "silenced");

  for (const char* body :
       {R"({"key":"a","pattern":"a","for":"1h","reason":"r"})", R"({"for":"1h","reason":"r"})",
        R"({"key":"a","match":"glob","for":"1h","reason":"r"})",
        R"({"pattern":"a*","match":"exact","for":"1h","reason":"r"})",
        R"({"key":7,"for":"1h","reason":"r"})", R"({"key":"","for":"1h","reason":"r"})"}) {
    app::OpsResponse refused = Call("POST", "/v1/silences", body, true);
    EXPECT_EQ(refused.status, 400) << body << " -> " << refused.body;
  }
  const json neither = Body(Call("POST", "/v1/silences", R"({"for":"1h","reason":"r"})", true));
  EXPECT_NE(neither["error"]["message"].get<std::string>().find("\"key\""), std::string::npos)
      << neither;
  EXPECT_EQ(Body(Call("GET", "/v1/silences"))["silences"].size(), 1u);
}

TEST_F(OperatorRoutesTest, ThePreviewListsTheOpenIncidentsASilenceWouldMatchAndSavesNothing) {
  for (const char* key : {"acme:web", "acme:db", "beta:db", "*:*", "acme:old"}) Open(key);
  ASSERT_EQ(Call("POST", "/v1/incidents/acme:old/resolve", "", true).status, 200);

  app::OpsResponse acme = Call("GET", "/v1/silences/preview", "", false, {{"pattern", "acme:*"}});
  ASSERT_EQ(acme.status, 200) << acme.body;
  EXPECT_EQ(Body(acme)["match"], "glob");
  EXPECT_EQ(Body(acme)["pattern"], "acme:*");
  EXPECT_EQ(Body(acme)["matched"], 2);  // open ones only, in key order
  EXPECT_EQ(Body(acme)["keys"], (json{"acme:db", "acme:web"}));

  app::OpsResponse all =
      Call("GET", "/v1/silences/preview", "", false, {{"pattern", "*:*"}, {"limit", "2"}});
  ASSERT_EQ(all.status, 200) << all.body;
  EXPECT_EQ(Body(all)["matched"], 4);
  EXPECT_EQ(Body(all)["keys"], (json{"*:*", "acme:db"}));

  app::OpsResponse one = Call("GET", "/v1/silences/preview", "", false, {{"key", "*:*"}});
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(Body(one)["match"], "exact");
  EXPECT_EQ(Body(one)["matched"], 1);
  EXPECT_EQ(Body(one)["keys"], (json{"*:*"}));

  const std::vector<std::map<std::string, std::string>> bad = {{},
                                                               {{"pattern", "a*"}, {"key", "a"}},
                                                               {{"pattern", ""}},
                                                               {{"pattern", "a*"}, {"limit", "0"}},
                                                               {{"pattern", "a*"}, {"q", "x"}}};
  for (const auto& query : bad) {
    app::OpsResponse refused = Call("GET", "/v1/silences/preview", "", false, query);
    EXPECT_EQ(refused.status, 400) << refused.body;
    EXPECT_EQ(Body(refused)["error"]["code"], "bad_request");
  }
  EXPECT_TRUE(Body(Call("GET", "/v1/silences"))["silences"].empty());
}

TEST_F(OperatorRoutesTest, DeadRowsAreListedRetriedAndDropped) {
  Open("acme:db");
  Open("beta:db");
  auto claimed = store_->ClaimDue("d", clock_.Now(), seconds(60), 10);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 2u);
  std::vector<core::OutboxOutcome> dead(2);
  for (size_t i = 0; i < 2; ++i) {
    dead[i].kind = core::OutboxOutcome::Kind::kDead;
    dead[i].idempotency_key = (*claimed)[i].idempotency_key;
    dead[i].error = "HTTP 400";
  }
  ASSERT_TRUE(store_->RecordOutcomes("d", dead, clock_.Now()).ok());

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
  auto again = store_->ClaimDue("d2", clock_.Now(), seconds(60), 10);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].idempotency_key, a);
}

TEST_F(OperatorRoutesTest, EveryErrorHasTheOneShapeWithAMessage) {
  Open("acme:db");
  const std::vector<std::pair<app::OpsResponse, std::string>> errors = {
      {Call("POST", "/v1/incidents/acme:db/ack", "[1]", true), "bad_request"},
      {Call("POST", "/v1/incidents/acme:db/ack", "{", true), "bad_request"},
      {Call("POST", "/v1/silences", "", true), "bad_request"},
      {Call("POST", "/v1/silences", R"({"pattern":"a"})", true), "bad_request"},
      {Call("DELETE", "/v1/silences/abc", "", true), "bad_request"},
      {Call("DELETE", "/v1/silences/9", "", true), "not_found"},
      {Call("GET", "/v1/incidents/no:such:key"), "not_found"},
      {Call("GET", "/v1/incidents", "", false, {{"status", "closed"}}), "bad_request"},
      {Call("POST", "/v1/outbox/dead/q1-none/retry", "", true), "not_found"},
  };
  for (const auto& [response, code] : errors) {
    EXPECT_EQ(response.content_type, "application/json");
    const json body = Body(response);
    ASSERT_TRUE(body["error"].is_object()) << response.body;
    EXPECT_EQ(body["error"]["code"], code) << response.body;
    EXPECT_FALSE(body["error"]["message"].get<std::string>().empty()) << response.body;
  }
  // A body that is required says what it should hold.
  const json missing = Body(Call("POST", "/v1/silences", "", true));
  EXPECT_NE(missing["error"]["message"].get<std::string>().find("needs a JSON object body"),
            std::string::npos)
      << missing;
}

TEST_F(OperatorRoutesTest, OneIncidentWithItsDecisionsAndOutboxRows) {
  Open("acme:db/primary");
  clock_.SleepFor(minutes(1));
  ASSERT_EQ(Call("POST", "/v1/incidents/acme:db/primary/resolve", "", true).status, 200);

  app::OpsResponse shown = Call("GET", "/v1/incidents/acme:db/primary");
  ASSERT_EQ(shown.status, 200) << shown.body;
  const json body = Body(shown);
  EXPECT_EQ(body["incident"]["key"], "acme:db/primary");
  EXPECT_EQ(body["incident"]["status"], "resolved");
  EXPECT_EQ(body["incident"]["labels"], (json{{"tenant", "acme"}}));
  EXPECT_EQ(body["incident"]["upstream_count"], 12);
  EXPECT_EQ(body["incident"]["unhealthy_streak"], 0);
  ASSERT_EQ(body["decisions"].size(), 2u) << body;
  EXPECT_EQ(body["decisions"][0]["decision"], "resolve");
  EXPECT_EQ(body["decisions"][0]["reason"], "manual");
  EXPECT_EQ(body["decisions"][0]["at"], "2026-12-02T09:01:00Z");
  EXPECT_EQ(body["decisions"][1]["decision"], "notify");
  EXPECT_EQ(body["decisions"][1]["reason"], "open");
  ASSERT_EQ(body["outbox"].size(), 2u) << body;
  EXPECT_EQ(body["outbox"][0]["transition"], "resolve");
  EXPECT_EQ(body["outbox"][1]["transition"], "open");
  EXPECT_EQ(body["outbox"][1]["channel"], "webhook");

  const json newest =
      Body(Call("GET", "/v1/incidents/acme:db/primary", "", false, {{"limit", "1"}}));
  EXPECT_EQ(newest["decisions"].size(), 1u);
  EXPECT_EQ(newest["outbox"].size(), 1u);
  EXPECT_EQ(Call("GET", "/v1/incidents/acme:db/primary", "", false, {{"limit", "0"}}).status, 400);
}

// The page and the API showed no severity (the list did), counted 0 sends for a grouped
// incident and left its rows "grouped" with nothing naming the message that carried them.
TEST_F(OperatorRoutesTest, OneGroupedIncidentShowsSeverityItsSendsAndItsGroupMessage) {
  core::GroupPolicy policy;
  policy.group_by = {"condition"};
  app::ApplyOptions options;
  options.channels = {"webhook"};
  options.grouping.emplace("webhook", policy);
  app::PollApplier applier(*store_, encoder_, options);
  core::Observation o;
  o.key = "acme:disk";
  o.at = clock_.Now();
  o.health = core::Health::kUnhealthy;
  o.condition = "prom-alerts";
  o.labels = {{"severity", "warning"}, {"tenant", "acme"}};
  o.evidence = R"({"annotations":{"summary":"disk full"},"status":"firing"})";
  const std::vector<core::Observation> poll = {o};
  app::VectorObservationStream stream(poll);
  NullSink sink;
  ASSERT_TRUE(applier.Apply(stream, "push-1", clock_.Now(), sink).ok());

  json body = Body(Call("GET", "/v1/incidents/acme:disk"));
  EXPECT_EQ(body["incident"]["severity"], "warning");  // the alert's label: it has no level
  EXPECT_EQ(body["incident"]["notifications_sent"], 0);
  ASSERT_EQ(body["outbox"].size(), 1u);
  EXPECT_EQ(body["outbox"][0]["status"], "grouped");
  EXPECT_EQ(body["outbox"][0]["group_row"], nullptr);  // waiting for its group's message
  EXPECT_EQ(body["group_messages"], json::array());

  clock_.SleepFor(seconds(30));
  auto group =
      store_->AssembleGroup("webhook", "condition=prom-alerts", clock_.Now(),
                            core::GroupPlannerFor(policy.group_wait, policy.group_interval));
  ASSERT_TRUE(group.ok() && group->has_value());
  const std::string group_row = (*group)->idempotency_key;
  body = Body(Call("GET", "/v1/incidents/acme:disk"));
  EXPECT_EQ(body["incident"]["notifications_sent"], 0);  // built, not sent yet
  EXPECT_EQ(body["outbox"][0]["group_row"], group_row);
  ASSERT_EQ(body["group_messages"].size(), 1u);
  EXPECT_EQ(body["group_messages"][0]["status"], "pending");
  EXPECT_EQ(body["group_messages"][0]["sent_at"], nullptr);

  clock_.SleepFor(seconds(2));
  ASSERT_TRUE(store_->MarkSent(group_row, "hook-77", clock_.Now()).ok());
  body = Body(Call("GET", "/v1/incidents/acme:disk"));
  EXPECT_EQ(body["incident"]["notifications_sent"], 1);
  EXPECT_EQ(body["outbox"][0]["status"], "grouped");
  EXPECT_EQ(body["outbox"][0]["group_row"], group_row);
  const json& message = body["group_messages"][0];
  EXPECT_EQ(message["idempotency_key"], group_row);
  EXPECT_EQ(message["key"], "{group}:condition=prom-alerts");
  EXPECT_EQ(message["group_key"], "condition=prom-alerts");  // as /v1/groups names it
  EXPECT_EQ(message["channel"], "webhook");
  EXPECT_EQ(message["status"], "sent");
  EXPECT_EQ(message["remote_message_id"], "hook-77");
  EXPECT_EQ(message["sent_at"], "2026-12-02T09:00:32Z");
  EXPECT_FALSE(message.contains("payload"));  // every member's snapshot: not here
  // The list says the same of it.
  body = Body(Call("GET", "/v1/incidents"));
  ASSERT_EQ(body["incidents"].size(), 1u);
  EXPECT_EQ(body["incidents"][0]["severity"], "warning");
  EXPECT_EQ(body["incidents"][0]["notifications_sent"], 1);
}

TEST_F(OperatorRoutesTest, TheTimelineShowsEveryPollAndEachSendAttempt) {
  Open("acme:db/primary");
  // A failed poll a minute later: unknown, marked on the open incident.
  {
    app::PollApplier applier(*store_, encoder_, app::ApplyOptions{});
    core::Observation o;
    o.key = "acme:db/primary";
    o.at = clock_.Now() + minutes(1);
    o.health = core::Health::kUnknown;
    o.condition = "c";
    const std::vector<core::Observation> poll = {o};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    ASSERT_TRUE(applier.Apply(stream, "p-unknown", o.at, sink).ok());
  }
  // The open fails once, then goes out.
  auto claimed = store_->ClaimDue("d", clock_.Now() + seconds(5), minutes(1), 10);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 1u);
  const std::string ik = (*claimed)[0].idempotency_key;
  core::OutboxOutcome failed;
  failed.kind = core::OutboxOutcome::Kind::kReschedule;
  failed.idempotency_key = ik;
  failed.error = "HTTP 500 from receiver";
  failed.next_attempt_at = clock_.Now() + seconds(10);
  ASSERT_TRUE(store_->RecordOutcomes("d", {&failed, 1}, clock_.Now() + seconds(5)).ok());
  ASSERT_EQ(store_->ClaimDue("d", clock_.Now() + seconds(10), minutes(1), 10)->size(), 1u);
  core::OutboxOutcome sent;
  sent.kind = core::OutboxOutcome::Kind::kSent;
  sent.idempotency_key = ik;
  sent.remote_message_id = "msg-7";
  ASSERT_TRUE(store_->RecordOutcomes("d", {&sent, 1}, clock_.Now() + seconds(10)).ok());

  app::OpsResponse shown = Call("GET", "/v1/incidents/acme:db/primary/timeline");
  ASSERT_EQ(shown.status, 200) << shown.body;
  EXPECT_EQ(shown.content_type, "application/json");
  EXPECT_EQ(shown.body.rfind(R"({"key":"acme:db/primary","observations":[{"at":)", 0), 0u)
      << shown.body;
  const json body = Body(shown);
  EXPECT_EQ(body["observations"], (json::parse(R"([
    {"at": "2026-12-02T09:00:00Z", "poll_id": "p-acme:db/primary-2026-12-02T09:00:00Z",
     "generation": 1, "health": "unhealthy", "decision": "notify", "reason": "open",
     "version": 1},
    {"at": "2026-12-02T09:01:00Z", "poll_id": "p-unknown", "generation": 1,
     "health": "unknown", "decision": "unknown", "reason": "", "version": null}])")));
  json attempt = {{"at", "2026-12-02T09:00:05Z"}, {"idempotency_key", ik},
                  {"channel", "webhook"},         {"generation", 1},
                  {"transition", "open"},         {"attempt", 1},
                  {"outcome", "failed"},          {"detail", "HTTP 500 from receiver"}};
  ASSERT_EQ(body["attempts"].size(), 2u) << body;
  EXPECT_EQ(body["attempts"][0], attempt);
  attempt["at"] = "2026-12-02T09:00:10Z";
  attempt["attempt"] = 2;
  attempt["outcome"] = "sent";
  attempt["detail"] = "msg-7";
  EXPECT_EQ(body["attempts"][1], attempt);
  EXPECT_EQ(body["generations"], (json::parse(R"([{"generation": 1,
      "opened_at": "2026-12-02T09:00:00Z", "resolved_at": null, "acked_at": null,
      "acked_by": ""}])")));

  // The detail route still answers for the key itself.
  EXPECT_EQ(Body(Call("GET", "/v1/incidents/acme:db/primary"))["incident"]["key"],
            "acme:db/primary");
  const json newest =
      Body(Call("GET", "/v1/incidents/acme:db/primary/timeline", "", false, {{"limit", "1"}}));
  ASSERT_EQ(newest["observations"].size(), 1u);
  EXPECT_EQ(newest["observations"][0]["poll_id"], "p-unknown");
  EXPECT_EQ(newest["attempts"][0]["outcome"], "sent");
  for (const char* bad : {"0", "10001", "x"}) {
    app::OpsResponse refused =
        Call("GET", "/v1/incidents/acme:db/primary/timeline", "", false, {{"limit", bad}});
    EXPECT_EQ(refused.status, 400) << bad;
    EXPECT_EQ(Body(refused)["error"]["code"], "bad_request");
  }
  EXPECT_EQ(
      Call("GET", "/v1/incidents/acme:db/primary/timeline", "", false, {{"since", "1"}}).status,
      400);
  app::OpsResponse unknown = Call("GET", "/v1/incidents/no:such/timeline");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(Body(unknown)["error"]["code"], "not_found");
}

TEST_F(OperatorRoutesTest, IncidentListsFilterByStatusConditionAndLimit) {
  Open("a:1", "errors");
  Open("b:2", "errors");
  Open("c:3", "latency");
  ASSERT_EQ(Call("POST", "/v1/incidents/b:2/resolve", "", true).status, 200);
  auto keys = [&](std::map<std::string, std::string> query) {
    app::OpsResponse response = Call("GET", "/v1/incidents", "", false, std::move(query));
    std::vector<std::string> out;
    if (response.status != 200) {
      out.push_back(std::to_string(response.status));
      return out;
    }
    const json body = Body(response);
    for (const json& in : body["incidents"]) out.push_back(in["key"]);
    return out;
  };
  using Keys = std::vector<std::string>;
  EXPECT_EQ(keys({}), (Keys{"a:1", "b:2", "c:3"}));
  EXPECT_EQ(keys({{"status", "all"}}), (Keys{"a:1", "b:2", "c:3"}));
  EXPECT_EQ(keys({{"status", "open"}}), (Keys{"a:1", "c:3"}));
  EXPECT_EQ(keys({{"status", "resolved"}}), (Keys{"b:2"}));
  EXPECT_EQ(keys({{"condition", "errors"}}), (Keys{"a:1", "b:2"}));
  EXPECT_EQ(keys({{"status", "open"}, {"condition", "errors"}}), (Keys{"a:1"}));
  EXPECT_EQ(keys({{"limit", "2"}}), (Keys{"a:1", "b:2"}));
  EXPECT_EQ(keys({{"status", "shut"}}), (Keys{"400"}));
  EXPECT_EQ(keys({{"limit", "many"}}), (Keys{"400"}));
  EXPECT_EQ(keys({{"stauts", "open"}}), (Keys{"400"}));  // a typo is not "no filter"
}

TEST_F(OperatorRoutesTest, IncidentListPagesInTriageOrderWithTotalSeverityAndSends) {
  Open("a:1", "errors");
  clock_.SleepFor(minutes(1));
  Open("b:2", "errors");
  clock_.SleepFor(minutes(1));
  Open("c:3", "latency");
  ASSERT_EQ(Call("POST", "/v1/incidents/b:2/resolve", "", true).status, 200);
  ASSERT_TRUE(
      store_->MarkSent(core::OutboxIdempotencyKey("a:1", 1, 1, "webhook"), "m1", clock_.Now())
          .ok());
  // Severity from the config for "errors"; "latency" has none and no evidence: "".
  queries_ = std::make_unique<app::OperatorQueries>(
      *store_, *store_, app::ConditionSeverities{{"errors", "critical"}});
  routes_ = OperatorRoutes(*commands_, *queries_, clock_, log_);

  app::OpsResponse first =
      Call("GET", "/v1/incidents", "", false, {{"order", "triage"}, {"limit", "2"}});
  ASSERT_EQ(first.status, 200) << first.body;
  json body = Body(first);
  EXPECT_EQ(body["total"], 3);
  ASSERT_EQ(body["incidents"].size(), 2u);
  EXPECT_EQ(body["incidents"][0]["key"], "c:3");  // open, newest first
  EXPECT_EQ(body["incidents"][1]["key"], "a:1");
  EXPECT_EQ(body["incidents"][1]["severity"], "critical");
  EXPECT_EQ(body["incidents"][1]["notifications_sent"], 1);
  EXPECT_EQ(body["incidents"][0]["severity"], "");
  EXPECT_EQ(body["incidents"][0]["notifications_sent"], 0);
  // The two new fields come after every existing one, in that order.
  const std::string& text = first.body;
  EXPECT_LT(text.find("\"recent_evidence\""), text.find("\"severity\""));
  EXPECT_LT(text.find("\"severity\""), text.find("\"notifications_sent\""));

  body = Body(Call("GET", "/v1/incidents", "", false,
                   {{"order", "triage"}, {"limit", "2"}, {"offset", "2"}}));
  ASSERT_EQ(body["incidents"].size(), 1u);
  EXPECT_EQ(body["incidents"][0]["key"], "b:2");
  EXPECT_EQ(body["total"], 3);

  body = Body(Call("GET", "/v1/incidents", "", false, {{"q", "B:"}}));
  ASSERT_EQ(body["incidents"].size(), 1u);
  EXPECT_EQ(body["incidents"][0]["key"], "b:2");
  body = Body(Call("GET", "/v1/incidents", "", false, {{"label", "tenant=acme"}}));
  EXPECT_EQ(body["total"], 3);
  body = Body(Call("GET", "/v1/incidents", "", false, {{"label", "tenant=beta"}}));
  EXPECT_EQ(body["total"], 0);
  EXPECT_EQ(body["incidents"], json::array());

  EXPECT_EQ(Call("GET", "/v1/incidents", "", false, {{"order", "newest"}}).status, 400);
  EXPECT_EQ(Call("GET", "/v1/incidents", "", false, {{"offset", "-1"}}).status, 400);
  EXPECT_EQ(Call("GET", "/v1/incidents", "", false, {{"label", "tenant"}}).status, 400);
  app::OpsResponse bad = Call("GET", "/v1/incidents", "", false, {{"label", "=acme"}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("label"), std::string::npos);
}

TEST_F(OperatorRoutesTest, OutboxListsFilterByStatusAndChannel) {
  Open("a:1");
  Open("b:2");
  ASSERT_EQ(Call("POST", "/v1/incidents/b:2/resolve", "", true).status, 200);
  auto count = [&](const char* path, std::map<std::string, std::string> query) -> int {
    app::OpsResponse response = Call("GET", path, "", false, std::move(query));
    if (response.status != 200) return -response.status;
    return static_cast<int>(Body(response)["rows"].size());
  };
  EXPECT_EQ(count("/v1/outbox", {}), 3);
  EXPECT_EQ(count("/v1/outbox", {{"status", "pending"}}), 3);
  EXPECT_EQ(count("/v1/outbox", {{"status", "sent"}}), 0);
  EXPECT_EQ(count("/v1/outbox", {{"channel", "webhook"}}), 3);
  EXPECT_EQ(count("/v1/outbox", {{"channel", "slack"}}), 0);
  EXPECT_EQ(count("/v1/outbox", {{"limit", "1"}}), 1);
  EXPECT_EQ(count("/v1/outbox", {{"status", "lost"}}), -400);
  EXPECT_EQ(count("/v1/outbox/dead", {{"channel", "webhook"}}), 0);
  EXPECT_EQ(count("/v1/outbox/dead", {{"status", "sent"}}), -400);
}

TEST_F(OperatorRoutesTest, EveryWriteIsLoggedWithKeyActionAndWho) {
  Open("acme:db");
  ASSERT_EQ(Call("POST", "/v1/incidents/acme:db/ack", "", true).status, 200);
  ASSERT_EQ(
      Call("POST", "/v1/silences", R"({"pattern":"acme:*","for":"1h","reason":"r"})", true).status,
      201);
  ASSERT_EQ(Call("DELETE", "/v1/silences/1", "", true).status, 200);
  ASSERT_EQ(Call("POST", "/v1/incidents/acme:db/resolve", "", true).status, 200);
  ASSERT_EQ(Call("POST", "/v1/incidents/acme:db/resolve", "", true).status, 409);
  ASSERT_EQ(Call("DELETE", "/v1/outbox/dead/q1-none", "", true).status, 404);
  ASSERT_EQ(Call("GET", "/v1/incidents").status, 200);  // a read is not logged

  ASSERT_EQ(log_.lines.size(), 6u);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"ack", "acme:db"},     {"silence.add", "acme:*"}, {"silence.remove", "1"},
      {"resolve", "acme:db"}, {"resolve", "acme:db"},    {"dead.drop", "q1-none"}};
  for (size_t i = 0; i < expected.size(); ++i) {
    const RecordingLog::Line& line = log_.lines[i];
    EXPECT_EQ(line.event, "http.write");
    EXPECT_EQ(line.fields.at("action"), expected[i].first);
    EXPECT_EQ(line.fields.at("key"), expected[i].second);
    EXPECT_EQ(line.fields.at("who"), "http-test");
  }
  EXPECT_EQ(log_.lines[0].level, core::LogLevel::kInfo);
  EXPECT_EQ(log_.lines[0].fields.at("status"), "200");
  EXPECT_EQ(log_.lines[4].level, core::LogLevel::kWarn);
  EXPECT_EQ(log_.lines[4].fields.at("status"), "409");
  EXPECT_NE(log_.lines[4].fields.at("error").find("not open"), std::string::npos);
}

}  // namespace
}  // namespace quell::http_server
