// GET /v1/status through the ops server on a real loopback port, over an in-memory lease store,
// spoken to by cpp-httplib's client.
#include "quell/adapters/http_server/status_routes.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "quell/adapters/http_server/ops_http_server.h"

namespace quell::http_server {
namespace status_routes_test {

using nlohmann::json;

constexpr const char* kToken = "status-reader-token-0123";

core::WallTime At(const char* text) { return *core::ParseRfc3339(text); }

// What a store answers; `fail` makes every read fail as an unreachable store does.
class ListedLeases : public core::LeaseStore {
 public:
  core::Result<core::LeaseClaim> Acquire(std::string_view, std::string_view, core::WallTime,
                                         core::Duration) override {
    return core::MakeError(core::ErrorCode::kInternal, "not used");
  }
  core::Status Release(std::string_view, std::string_view, uint64_t, core::WallTime) override {
    return {};
  }
  core::Result<std::vector<core::Lease>> ListLeases() override {
    if (fail) return core::MakeError(core::ErrorCode::kUnavailable, "store unreachable");
    return leases;
  }
  core::Status SeeInstance(const core::InstanceSeen&, core::WallTime) override { return {}; }
  core::Result<std::vector<core::InstanceSeen>> ListInstances() override {
    if (fail) return core::MakeError(core::ErrorCode::kUnavailable, "store unreachable");
    return instances;
  }

  std::vector<core::Lease> leases;
  std::vector<core::InstanceSeen> instances;
  bool fail = false;
};

class StatusRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    core::Lease held{.name = "poll/infrai-error-groups/1m0s",
                     .holder = "a:1:x",
                     .token = 3,
                     .expires_at = now_ + std::chrono::seconds(10),
                     .acquired_at = now_ - std::chrono::minutes(5),
                     .renewed_at = now_ - std::chrono::seconds(5),
                     .polled_at = now_ - std::chrono::seconds(20)};
    core::Lease stale{.name = "poll/prometheus/30s",
                      .holder = "b:2:y",
                      .token = 7,
                      .expires_at = now_ - std::chrono::seconds(1),
                      .acquired_at = now_ - std::chrono::hours(1),
                      .renewed_at = now_ - std::chrono::seconds(16),
                      .polled_at = std::nullopt};
    store_.leases = {held, stale};
    store_.instances = {{.id = "b:2:y",
                         .host = "b",
                         .pid = 2,
                         .version = "0.9",
                         .started_at = now_ - std::chrono::hours(2),
                         .last_seen_at = now_ - std::chrono::minutes(3)},
                        {.id = "a:1:x",
                         .host = "a",
                         .pid = 1,
                         .version = "1.0",
                         .started_at = now_ - std::chrono::hours(1),
                         .last_seen_at = now_ - std::chrono::seconds(2)}};
    expected_ = {{"poll/infrai-metrics/5m0s", {"latency"}},
                 {"poll/infrai-error-groups/1m0s", {"checkout", "refunds"}}};
    OpsServerOptions options;
    options.token = kToken;
    server_ = std::make_unique<OpsHttpServer>(
        options, StatusRoutes([this]() {
          auto status = app::ReadClusterStatus(store_, expected_, now_, std::chrono::seconds(15));
          if (status) status->instance = "a:1:x";
          return status;
        }));
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  httplib::Result Get(bool with_token = true) {
    httplib::Headers headers;
    if (with_token) headers.emplace("Authorization", std::string("Bearer ") + kToken);
    return client_->Get("/v1/status", headers);
  }

  core::WallTime now_ = At("2026-12-04T12:00:00Z");
  ListedLeases store_;
  std::vector<app::ExpectedLease> expected_;
  std::unique_ptr<OpsHttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(StatusRoutesTest, ListsTheConfigsPollGroupsWithTheirHoldersThenTheOthers) {
  auto answer = Get();
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->status, 200) << answer->body;
  const json body = json::parse(answer->body);
  EXPECT_EQ(body["now"], "2026-12-04T12:00:00Z");
  EXPECT_EQ(body["instance"], "a:1:x");
  const json& groups = body["poll_groups"];
  ASSERT_EQ(groups.size(), 3u) << answer->body;
  // Expected but never taken: nobody polls it, and the status says so.
  EXPECT_EQ(groups[0]["lease"], "poll/infrai-metrics/5m0s");
  EXPECT_EQ(groups[0]["conditions"], json({"latency"}));
  EXPECT_EQ(groups[0]["held"], false);
  EXPECT_TRUE(groups[0]["holder"].is_null());
  EXPECT_EQ(groups[0]["token"], 0);
  EXPECT_TRUE(groups[0]["expires_at"].is_null());
  EXPECT_EQ(groups[0]["expired"], true);
  EXPECT_EQ(groups[1]["lease"], "poll/infrai-error-groups/1m0s");
  EXPECT_EQ(groups[1]["conditions"], json({"checkout", "refunds"}));
  EXPECT_EQ(groups[1]["held"], true);
  EXPECT_EQ(groups[1]["holder"], "a:1:x");
  EXPECT_EQ(groups[1]["token"], 3);
  EXPECT_EQ(groups[1]["expires_at"], "2026-12-04T12:00:10Z");
  EXPECT_EQ(groups[1]["expired"], false);
  EXPECT_EQ(groups[1]["acquired_at"], "2026-12-04T11:55:00Z");
  EXPECT_EQ(groups[1]["renewed_at"], "2026-12-04T11:59:55Z");
  EXPECT_EQ(groups[1]["polled_at"], "2026-12-04T11:59:40Z");
  // Stored, named by no condition of this config, and expired.
  EXPECT_EQ(groups[2]["lease"], "poll/prometheus/30s");
  EXPECT_EQ(groups[2]["conditions"], json::array());
  EXPECT_EQ(groups[2]["held"], false);
  EXPECT_EQ(groups[2]["holder"], "b:2:y");
  EXPECT_EQ(groups[2]["token"], 7);
  EXPECT_EQ(groups[2]["expired"], true);
  EXPECT_TRUE(groups[2]["polled_at"].is_null());
  const json& instances = body["instances"];
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(instances[0]["id"], "a:1:x");
  EXPECT_EQ(instances[0]["pid"], 1);
  EXPECT_EQ(instances[0]["live"], true);
  EXPECT_EQ(instances[1]["id"], "b:2:y");
  EXPECT_EQ(instances[1]["version"], "0.9");
  EXPECT_EQ(instances[1]["live"], false);
}

TEST_F(StatusRoutesTest, IsAReadRouteBehindTheToken) {
  auto refused = Get(/*with_token=*/false);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
}

TEST_F(StatusRoutesTest, AStoreThatCannotAnswerIsA503NamingWhy) {
  store_.fail = true;
  auto answer = Get();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 503);
  EXPECT_NE(answer->body.find("store unreachable"), std::string::npos) << answer->body;
}

}  // namespace status_routes_test
}  // namespace quell::http_server
