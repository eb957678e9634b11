// Alerts pushed to `quell run`: the daemon as a child process on a real SQLite file with a
// push-only config (no source section, no API key), Alertmanager's webhook payload POSTed to its
// HTTP port with the bearer token, a loopback webhook receiver as the channel; and a kill -9
// between a push's commit and its answer, then the same POST retried with its poll_id.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "quell/core/text/time.h"
#include "quell_run.h"
#include "webhook_receiver.h"

namespace quell {
namespace push_input_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kToken = "push-e2e-token-5c1d77e0";
constexpr const char* kHookSecret = "whsec-push-e2e-91be";

std::string AlertmanagerPayload(const std::string& status) {
  const json alert = {
      {"status", status},
      {"labels", {{"alertname", "DiskFull"}, {"tenant", "acme"}}},
      {"annotations", {{"summary", "disk 97% full"}}},
      {"startsAt", "2026-12-02T08:55:00Z"},
      {"endsAt", status == "firing"
                     ? "0001-01-01T00:00:00Z"
                     : core::FormatRfc3339(std::chrono::time_point_cast<core::Duration>(
                           std::chrono::system_clock::now()))},
      {"generatorURL", "http://prometheus:9090/graph?g0.expr=disk"},
      {"fingerprint", "1a30ba71cca2921f"}};
  return json{{"version", "4"},
              {"receiver", "quell"},
              {"status", status},
              {"alerts", json::array({alert})},
              {"groupLabels", {{"alertname", "DiskFull"}}},
              {"commonLabels", alert["labels"]},
              {"commonAnnotations", alert["annotations"]},
              {"externalURL", "http://alertmanager:9093"},
              {"groupKey", "{}:{alertname=\"DiskFull\"}"},
              {"truncatedAlerts", 0}}
      .dump();
}

class PushInputE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
    SetEnv("QUELL_OPS_TOKEN", kToken);
    SetEnv("HOOK_SECRET", kHookSecret);
  }

  // A push-only config, the YAML shape docs/inputs.md documents.
  void WriteConfig(const testing::WebhookReceiver& hook) {
    std::ofstream(config_) << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
                           << "conditions:\n"
                           << "  - name: prom-alerts\n"
                           << "    type: push\n"
                           << "    key: \"{labels.tenant|no-tenant}:{labels.alertname}\"\n"
                           << "    stale_after: 15m\n"
                           << "    expire_after: 4h\n"
                           << "    healthy_polls_to_close: 2\n"
                           << "    interval: 1s\n"
                           << "    channels: [hook]\n"
                           << "channels:\n"
                           << "  - {name: hook, type: webhook, url: \"" << hook.Url() << "\",\n"
                           << "     secret_env: HOOK_SECRET}\n"
                           << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
                           << "log: {format: json, level: info}\n"
                           << "http: {listen: \"127.0.0.1:0\", token_env: QUELL_OPS_TOKEN}\n";
  }

  std::unique_ptr<testing::QuellRun> StartRun() {
    std::filesystem::remove(log_);
    auto run = std::make_unique<testing::QuellRun>(config_, log_);
    port_ = run->WaitListening();
    EXPECT_GT(port_, 0) << run->Log();
    return run;
  }

  httplib::Result Post(const std::string& path, const std::string& body, bool token = true) {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(30, 0);
    httplib::Headers headers;
    if (token) headers.emplace("Authorization", std::string("Bearer ") + kToken);
    return client.Post(path, headers, body, "application/json");
  }

  // The first column of the first row of `sql` on the daemon's SQLite file, as text.
  std::string Query(const std::string& sql) {
    sqlite3* db = nullptr;
    std::string out;
    if (sqlite3_open_v2((dir_ / "quell.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
      sqlite3_busy_timeout(db, 5000);
      sqlite3_stmt* stmt = nullptr;
      if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
          sqlite3_step(stmt) == SQLITE_ROW) {
        const unsigned char* text = sqlite3_column_text(stmt, 0);
        if (text != nullptr) out = reinterpret_cast<const char*>(text);
      }
      sqlite3_finalize(stmt);
    }
    sqlite3_close(db);
    return out;
  }

  // Accepted webhook deliveries of `key` whose transition is `transition`.
  static size_t Delivered(const testing::WebhookReceiver& hook, const std::string& key,
                          const std::string& transition) {
    size_t n = 0;
    for (const auto& request : hook.Requests()) {
      if (!request.authorized || request.duplicate) continue;
      const json body = json::parse(request.body, nullptr, false);
      if (body.is_object() && body.value("key", "") == key &&
          body.value("transition", "") == transition) {
        ++n;
      }
    }
    return n;
  }

  testing::ScratchDir dir_{"quell-push-input-e2e"};
  std::string config_;
  std::filesystem::path log_;
  int port_ = 0;
};

TEST_F(PushInputE2eTest, AlertmanagerPushesOpenAndResolveAndNeedTheToken) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook);
  auto run = StartRun();
  ASSERT_NE(port_, 0);

  // (c) Without the token: refused before the body is read, nothing stored.
  auto refused = Post("/v1/inputs/alertmanager", AlertmanagerPayload("firing"), false);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  EXPECT_EQ(Query("SELECT count(*) FROM incidents"), "0");
  EXPECT_EQ(Query("SELECT count(*) FROM polls"), "0");

  // (a) Firing with the token: the incident keyed by its labels opens and the open is sent.
  auto opened = Post("/v1/inputs/alertmanager", AlertmanagerPayload("firing"));
  ASSERT_TRUE(opened);
  ASSERT_EQ(opened->status, 200) << opened->body;
  const json answer = json::parse(opened->body);
  EXPECT_EQ(answer["condition"], "prom-alerts");
  EXPECT_EQ(answer["decisions"][0]["key"], "acme:DiskFull");
  EXPECT_EQ(answer["decisions"][0]["reason"], "open");
  EXPECT_EQ(Query("SELECT count(*) FROM incidents WHERE key = 'acme:DiskFull'"), "1");
  ASSERT_TRUE(WaitFor([&] { return Delivered(hook, "acme:DiskFull", "open") == 1; }, seconds(20)))
      << testing::ReadFile(log_);

  // (b) Resolved twice (healthy_polls_to_close: 2): the second resolves, the resolve is sent.
  auto first = Post("/v1/inputs/alertmanager", AlertmanagerPayload("resolved"));
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  EXPECT_EQ(json::parse(first->body)["decisions"][0]["decision"], "wait_for_health") << first->body;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a later `now`
  auto second = Post("/v1/inputs/alertmanager", AlertmanagerPayload("resolved"));
  ASSERT_TRUE(second);
  ASSERT_EQ(second->status, 200) << second->body;
  EXPECT_EQ(json::parse(second->body)["decisions"][0]["decision"], "resolve") << second->body;
  ASSERT_TRUE(
      WaitFor([&] { return Delivered(hook, "acme:DiskFull", "resolve") == 1; }, seconds(20)))
      << testing::ReadFile(log_);
  EXPECT_EQ(Delivered(hook, "acme:DiskFull", "open"), 1u);
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log_);
}

// A sender that lost the answer to a committed push (a kill -9 of the daemon, a dropped
// connection) retries with the same poll_id. From the store's side a kill after the commit is
// the same whether or not the answer left, so the daemon is killed right after the commit and
// the answer is not used: the retry to the restarted daemon must change nothing.
TEST_F(PushInputE2eTest, AKillAfterTheCommitThenARetryAppliesOnce) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook);
  auto run = StartRun();
  ASSERT_NE(port_, 0);
  const std::string at = core::FormatRfc3339(
      std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now()));
  const std::string body = R"({"at":")" + at +
                           R"(","unhealthy":true,"condition":"prom-alerts",)"
                           R"("labels":{"tenant":"acme","alertname":"Down"}})";
  auto first = Post("/v1/observations?poll_id=am-retry-1", body);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  run->Signal(SIGKILL);
  EXPECT_EQ(Query("SELECT count(*) FROM polls WHERE poll_id = 'am-retry-1'"), "1");
  EXPECT_EQ(Query("SELECT count(*) FROM decisions WHERE key = 'acme:Down'"), "1");

  run = StartRun();
  ASSERT_NE(port_, 0);
  auto retried = Post("/v1/observations?poll_id=am-retry-1", body);
  ASSERT_TRUE(retried);
  ASSERT_EQ(retried->status, 200) << retried->body;
  const json answer = json::parse(retried->body);
  EXPECT_EQ(answer["duplicate"], true);
  EXPECT_EQ(answer["changed"], 0);
  // Exactly one application: one decision, one open row, one poll row, one open sent.
  EXPECT_EQ(Query("SELECT count(*) FROM decisions WHERE key = 'acme:Down'"), "1");
  EXPECT_EQ(Query("SELECT count(*) FROM outbox WHERE key = 'acme:Down'"), "1");
  EXPECT_EQ(Query("SELECT count(*) FROM polls WHERE poll_id = 'am-retry-1'"), "1");
  ASSERT_TRUE(WaitFor([&] { return Delivered(hook, "acme:Down", "open") == 1; }, seconds(20)))
      << testing::ReadFile(log_);
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log_);
}

}  // namespace push_input_e2e_test
}  // namespace quell
