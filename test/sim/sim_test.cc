// Behaviour of quell-sim over real HTTP: an in-process SimServer on loopback port 0.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>

#include "quell/sim/server.h"
#include "test_paths.h"

namespace quell::sim {
namespace {

using nlohmann::json;

class SimTest : public ::testing::Test {
 protected:
  void Boot(SimOptions options = {}) {
    server_ = std::make_unique<SimServer>(std::move(options));
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
    client_->set_read_timeout(std::chrono::seconds(5));
  }
  void SetUp() override { Boot(); }
  void TearDown() override { server_->Stop(); }

  httplib::Headers Auth() { return {{"Authorization", "Bearer ifr_pk_proj_test"}}; }
  json Parse(const httplib::Result& r) {
    EXPECT_TRUE(r) << "transport error";
    if (!r) return nullptr;
    return json::parse(r->body, nullptr, false);
  }
  json Get(const std::string& path) { return Parse(client_->Get(path, Auth())); }
  json Post(const std::string& path, const json& body, httplib::Headers h = {}) {
    h.emplace("Authorization", "Bearer ifr_test");
    return Parse(client_->Post(path, h, body.dump(), "application/json"));
  }
  json Admin(const std::string& path, const json& body) {
    return Parse(client_->Post(path, body.dump(), "application/json"));
  }

  std::unique_ptr<SimServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

// One request written by hand (httplib's client always sends a Content-Length); the whole
// answer, the connection closed by the request.
std::string RawExchange(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size())) {
    char buffer[4096];
    for (ssize_t n = 0; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
      answer.append(buffer, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return answer;
}

// `curl -XPOST .../_sim/groups/ID/resolve` sends no Content-Length; cpp-httplib refuses that
// with 400 before any route runs, and the answer said "no route", sending the user to look for
// a typo in a path the docs list.
TEST_F(SimTest, ABodylessPostIsNotCalledAMissingRoute) {
  ASSERT_TRUE(Admin("/_sim/groups", {{"id", "grp_x"}, {"title", "x"}}).is_object());
  const std::string answer =
      RawExchange(server_->port(),
                  "POST /_sim/groups/grp_x/resolve HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  "Connection: close\r\n\r\n");
  EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0U) << answer;
  EXPECT_EQ(answer.find("no route"), std::string::npos) << answer;
  EXPECT_NE(answer.find("a POST needs a body or Content-Length: 0"), std::string::npos) << answer;
  EXPECT_NE(answer.find("\"INVALID_ARGUMENT\""), std::string::npos) << answer;

  auto unknown = client_->Post("/_sim/nope", "{}", "application/json");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_NE(unknown->body.find("no route POST /_sim/nope"), std::string::npos) << unknown->body;
}

TEST_F(SimTest, EveryRouteAnswersInTheEnvelope) {
  json j = Get("/v1/errors/groups");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["ok"], true);
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_TRUE(j["data"]["groups"].is_array());
  EXPECT_TRUE(j["data"]["next_cursor"].is_null());
  EXPECT_EQ(j["metadata"]["cost_usd"], 0);
  EXPECT_EQ(j["metadata"]["request_id"].get<std::string>().size(), 36u);
  auto missing = client_->Get("/v1/errors/group_detail/grp_nope", Auth());
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  json e = json::parse(missing->body);
  EXPECT_EQ(e["ok"], false);
  EXPECT_TRUE(e["data"].is_null());
  EXPECT_EQ(e["error"]["code"], "NOT_FOUND");
}

TEST_F(SimTest, RejectsMissingOrForeignKeys) {
  auto none = client_->Get("/v1/errors/groups");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(json::parse(none->body)["error"]["code"], "UNAUTHORIZED");
  auto foreign = client_->Get("/v1/errors/groups", {{"Authorization", "Bearer sk_live_x"}});
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 401);
  // The log keeps only fingerprints of the keys it saw.
  auto log = client_->Get("/_sim/requests");
  ASSERT_TRUE(log);
  EXPECT_EQ(log->body.find("sk_live_x"), std::string::npos);
  EXPECT_NE(log->body.find("sha256:"), std::string::npos);
}

TEST_F(SimTest, CaptureGroupsResolveAndRecaptureReopens) {
  json body = {{"message", "bad input"}, {"fingerprint", {"agent", "step"}}};
  json first = Post("/v1/errors/capture", body);
  ASSERT_EQ(first["ok"], true);
  const std::string id = first["data"]["error_group_id"];
  EXPECT_FALSE(first["data"]["event_id"].get<std::string>().empty());
  EXPECT_EQ(first["data"]["error_id"], first["data"]["event_id"]);
  json second = Post("/v1/errors/capture", body);
  EXPECT_EQ(second["data"]["error_group_id"], id);
  json detail = Get("/v1/errors/group_detail/" + id);
  EXPECT_EQ(detail["data"]["count"], 2);
  EXPECT_EQ(detail["data"]["events"].size(), 2u);
  EXPECT_EQ(detail["data"]["latest_event"]["event_id"], second["data"]["event_id"]);
  json resolved = Post("/v1/errors/resolve/" + id, json::object());
  EXPECT_EQ(resolved["data"]["status"], "resolved");
  EXPECT_EQ(Get("/v1/errors/group_detail/" + id)["data"]["is_resolved"], true);
  Post("/v1/errors/capture", body);
  EXPECT_EQ(Get("/v1/errors/group_detail/" + id)["data"]["status"], "unresolved");
  // Without a fingerprint, exception type + message + code decide the group.
  json a = Post("/v1/errors/capture", {{"exception", {{"type", "ValueError"}, {"message", "x"}}}});
  json b = Post("/v1/errors/capture", {{"exception", {{"type", "ValueError"}, {"message", "x"}}}});
  json c = Post("/v1/errors/capture", {{"exception", {{"type", "KeyError"}, {"message", "x"}}}});
  EXPECT_EQ(a["data"]["error_group_id"], b["data"]["error_group_id"]);
  EXPECT_NE(a["data"]["error_group_id"], c["data"]["error_group_id"]);
  auto empty = client_->Post("/v1/errors/capture", Auth(), "{}", "application/json");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->status, 400);
  EXPECT_EQ(Post("/v1/errors/message", {{"text", "hello"}})["ok"], true);
}

TEST_F(SimTest, IdempotencyKeyReplaysTheOriginalResult) {
  json body = {{"message", "once"}};
  json first = Post("/v1/errors/capture", body, {{"Idempotency-Key", "k-1"}});
  json again = Post("/v1/errors/capture", body, {{"Idempotency-Key", "k-1"}});
  EXPECT_EQ(first, again);
  const std::string id = first["data"]["error_group_id"];
  EXPECT_EQ(Get("/v1/errors/group_detail/" + id)["data"]["count"], 1);
  // Past the 24 h window the key is forgotten.
  Admin("/_sim/clock", {{"advance", "25h"}});
  json later = Post("/v1/errors/capture", body, {{"Idempotency-Key", "k-1"}});
  EXPECT_NE(later["data"]["event_id"], first["data"]["event_id"]);
  json r1 = Post("/v1/errors/resolve/" + id, json::object(), {{"Idempotency-Key", "r-1"}});
  json r2 = Post("/v1/errors/resolve/" + id, json::object(), {{"Idempotency-Key", "r-1"}});
  EXPECT_EQ(r1, r2);
  json log = json::parse(client_->Get("/_sim/requests")->body);
  EXPECT_EQ(log["idempotency_keys"], json({"k-1", "r-1"}));
}

TEST_F(SimTest, PaginationWalksEveryGroupExactlyOnce) {
  json loaded = Admin("/_sim/scenario", {{"generate_groups", {{"count", 10000}}}});
  EXPECT_EQ(loaded["groups"], 10000);  // the summary describes the state after loading
  Admin("/_sim/config", {{"page_size", 500}});
  std::set<std::string> seen;
  std::string path = "/v1/errors/groups";
  int pages = 0;
  for (;;) {
    json j = Get(path);
    ASSERT_EQ(j["ok"], true);
    for (const json& g : j["data"]["groups"]) {
      EXPECT_TRUE(seen.insert(g["error_group_id"].get<std::string>()).second);
    }
    ++pages;
    if (j["data"]["next_cursor"].is_null()) break;
    path = "/v1/errors/groups?cursor=" + j["data"]["next_cursor"].get<std::string>();
  }
  // Speed is bench/poll_once's business; a time bound here fails on a loaded machine (it took
  // 13.8 s under ThreadSanitizer) without saying anything about the simulator.
  EXPECT_EQ(seen.size(), 10000u);
  EXPECT_EQ(pages, 20);
  json limited = Get("/v1/errors/list?limit=3");
  EXPECT_EQ(limited["data"]["groups"].size(), 3u);
  auto bad = client_->Get("/v1/errors/groups?cursor=garbage", Auth());
  EXPECT_EQ(bad->status, 400);
}

TEST_F(SimTest, SearchFilters) {
  Admin("/_sim/groups", {{"id", "g1"}, {"title", "Checkout failed"}, {"level", "error"}});
  Admin("/_sim/groups",
        {{"id", "g2"}, {"title", "Login slow"}, {"level", "warning"}, {"status", "resolved"}});
  EXPECT_EQ(Get("/v1/errors/search?q=checkout")["data"]["groups"].size(), 1u);
  EXPECT_EQ(Get("/v1/errors/search?status=resolved")["data"]["groups"][0]["error_group_id"], "g2");
  EXPECT_EQ(Get("/v1/errors/search?level=warning")["data"]["groups"].size(), 1u);
}

TEST_F(SimTest, StatusFaultsAnswerWithTheirCodes) {
  Admin("/_sim/faults", {{"route", "errors.groups"}, {"kind", "402"}, {"count", 1}});
  auto r = client_->Get("/v1/errors/groups", Auth());
  EXPECT_EQ(r->status, 402);
  json j = json::parse(r->body);
  EXPECT_EQ(j["error"]["code"], "INSUFFICIENT_CREDIT");
  EXPECT_NE(j["error"]["hint"].get<std::string>().find("billing"), std::string::npos);
  EXPECT_EQ(client_->Get("/v1/errors/groups", Auth())->status, 200);  // count was 1

  Admin("/_sim/faults",
        {{"route", "/v1/errors/groups"}, {"kind", "429"}, {"retry_after", 7}, {"count", 1}});
  r = client_->Get("/v1/errors/groups", Auth());
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->get_header_value("Retry-After"), "7");
  Admin("/_sim/faults", {{"route", "*"},
                         {"kind", "429"},
                         {"retry_after", 60},
                         {"retry_after_http_date", true},
                         {"count", 1}});
  r = client_->Get("/v1/discovery");
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->get_header_value("Retry-After"), "Wed, 02 Dec 2026 09:01:00 GMT");
  for (int status : {401, 500, 503}) {
    Admin("/_sim/faults", {{"kind", std::to_string(status)}, {"count", 1}});
    EXPECT_EQ(client_->Get("/v1/metrics/query", Auth())->status, status);
  }
}

TEST_F(SimTest, BodyFaultsBreakTheJson) {
  Admin("/_sim/faults", {{"kind", "truncate"}, {"count", 1}});
  EXPECT_TRUE(Get("/v1/errors/groups").is_discarded());
  Admin("/_sim/faults", {{"kind", "malformed"}, {"count", 1}});
  EXPECT_TRUE(Get("/v1/errors/groups").is_discarded());
  Admin("/_sim/faults", {{"kind", "non_object"}, {"count", 1}});
  EXPECT_TRUE(Get("/v1/errors/groups").is_array());
  EXPECT_TRUE(Get("/v1/errors/groups").is_object());
}

TEST_F(SimTest, RenameFaultServesAliases) {
  Admin("/_sim/groups", {{"id", "g1"}, {"title", "t"}, {"count", 3}});
  Admin("/_sim/faults",
        {{"kind", "rename"},
         {"renames",
          {{"error_group_id", "id"}, {"count", "event_count"}, {"status", "is_resolved"}}}});
  json g = Get("/v1/errors/groups")["data"]["groups"][0];
  EXPECT_EQ(g["id"], "g1");
  EXPECT_FALSE(g.contains("error_group_id"));
  EXPECT_EQ(g["event_count"], 3);
  EXPECT_FALSE(g.contains("status"));
  EXPECT_EQ(g["is_resolved"], false);
}

TEST_F(SimTest, BytesFaultServesTextAsRawBytes) {
  Admin("/_sim/groups", {{"id", "g1"}, {"title", "Café"}, {"count", 3}});
  Admin("/_sim/faults", {{"kind", "bytes"}, {"find", "é"}, {"bytes", "e9"}});
  auto listing = client_->Get("/v1/errors/groups", Auth());
  ASSERT_EQ(listing->status, 200);
  EXPECT_NE(listing->body.find("\"title\":\"Caf\xE9\""), std::string::npos) << listing->body;
  auto faults = client_->Get("/_sim/faults");
  EXPECT_EQ(json::parse(faults->body)["faults"][0]["bytes"], "e9") << faults->body;
  auto bad =
      client_->Post("/_sim/faults", json{{"kind", "bytes"}, {"find", "x"}, {"bytes", "e"}}.dump(),
                    "application/json");
  EXPECT_EQ(bad->status, 400) << bad->body;
}

TEST_F(SimTest, PageFaultHitsOnlyPageK) {
  Admin("/_sim/scenario", {{"generate_groups", {{"count", 30}}}, {"config", {{"page_size", 10}}}});
  Admin("/_sim/faults", {{"kind", "page_fail"}, {"page", 2}, {"status", 503}});
  auto first = client_->Get("/v1/errors/groups", Auth());
  ASSERT_EQ(first->status, 200);
  const std::string cursor = json::parse(first->body)["data"]["next_cursor"];
  EXPECT_EQ(client_->Get("/v1/errors/groups?cursor=" + cursor, Auth())->status, 503);
}

TEST_F(SimTest, SlowAndHangingAnswers) {
  Admin("/_sim/faults", {{"kind", "delay"}, {"delay_ms", 200}, {"count", 1}});
  auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(client_->Get("/v1/errors/groups", Auth())->status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(200));
  Admin("/_sim/faults", {{"kind", "timeout"}, {"delay_ms", 3000}, {"count", 1}});
  client_->set_read_timeout(std::chrono::milliseconds(300));
  auto r = client_->Get("/v1/errors/groups", Auth());
  EXPECT_FALSE(r);  // the client gave up first
}

TEST_F(SimTest, DiscoveryIsPublicAndBare) {
  auto r = client_->Get("/v1/discovery");
  ASSERT_EQ(r->status, 200);
  json j = json::parse(r->body);
  EXPECT_FALSE(j.contains("ok"));
  EXPECT_EQ(j["version"], "v1");
  ASSERT_TRUE(j["capabilities"].is_array());
  for (const json& c : j["capabilities"]) {
    for (const char* key :
         {"id", "method", "path", "available", "regions", "vendors", "billing", "summary"}) {
      EXPECT_TRUE(c.contains(key)) << key;
    }
  }
  EXPECT_EQ(client_->Get("/v1/discovery", Auth())->status, 200);
  json q = json::parse(client_->Get("/v1/discovery/metrics.query")->body);
  EXPECT_TRUE(q["params"]["properties"].empty());
  EXPECT_TRUE(
      json::parse(client_->Get("/v1/discovery/logs.search")->body)["params"]["properties"].empty());
  json cap = json::parse(client_->Get("/v1/discovery/errors.capture")->body);
  EXPECT_TRUE(cap["errors"][2]["retryable"].get<bool>());
  EXPECT_TRUE(cap["examples"].contains("curl"));
  EXPECT_EQ(client_->Get("/v1/discovery/no.such")->status, 404);
}

TEST_F(SimTest, MetricsReportBatchAndQuery) {
  EXPECT_EQ(Post("/v1/metrics/report", {{"name", "lat"}, {"value", 5}})["ok"], true);
  json batch =
      Post("/v1/metrics/batch", {{"points", {{{"name", "lat"}, {"value", 15}}, {{"name", "x"}}}}});
  EXPECT_EQ(batch["data"]["accepted"], 1);
  EXPECT_EQ(batch["data"]["rejected"], 1);
  json all = Get("/v1/metrics/query");
  ASSERT_EQ(all["data"]["series"].size(), 1u);
  EXPECT_EQ(all["data"]["series"][0]["points"].size(), 2u);
  json avg = Get("/v1/metrics/query?name=lat&agg=avg");
  EXPECT_EQ(avg["data"]["series"][0]["points"][0]["value"], 10.0);
  EXPECT_EQ(Get("/v1/metrics/query?name=other")["data"]["series"].size(), 0u);
}

TEST_F(SimTest, ScenarioTimelineFlapsThenRecovers) {
  std::ifstream in(testing::SourcePath("test/sim/data/flapping.json"));
  std::stringstream text;
  text << in.rdbuf();
  Admin("/_sim/scenario", json::parse(text.str()));
  std::vector<std::string> statuses;
  std::vector<std::string> times;
  for (int poll = 1; poll <= 6; ++poll) {
    json g = Get("/v1/errors/groups")["data"]["groups"][0];
    statuses.push_back(g["status"]);
    times.push_back(g["last_seen"]);
  }
  EXPECT_EQ(statuses, (std::vector<std::string>{"unresolved", "unresolved", "resolved",
                                                "unresolved", "resolved", "resolved"}));
  EXPECT_EQ(times[1], "2026-12-02T09:01:00Z");  // the clock moves one minute per poll
  EXPECT_EQ(Get("/v1/errors/groups")["data"]["groups"][0]["tags"]["tenant"], "acme");
}

}  // namespace
}  // namespace quell::sim
