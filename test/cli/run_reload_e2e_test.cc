// What a SIGHUP reload of `quell run` changes on its HTTP port, and readiness on a standby: the
// daemon as a child process on a real SQLite file, quell-sim in process, loopback webhook
// receivers, requests signed as Slack and PagerDuty sign theirs.
#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sqlite3.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "quell/adapters/channels/ack_link.h"
#include "quell/sim/scenario.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"
#include "webhook_receiver.h"

namespace quell {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using testing::Events;
using testing::HttpGet;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kHookSecret = "whsec-reload-e2e-7d21";
constexpr const char* kToken = "reload-e2e-operator-token-4f0c";
constexpr const char* kKey = "acme:checkout:grp_reload";

// Hex HMAC-SHA256 straight from OpenSSL, as a provider computes it.
std::string Hmac(const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    static constexpr char kHex[] = "0123456789abcdef";
    hex += kHex[mac[i] >> 4];
    hex += kHex[mac[i] & 0xF];
  }
  return hex;
}

struct Secrets {
  std::string slack;
  std::string pagerduty;
  std::string ack;
};

class RunReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = testing::StartInfraiSim(
        json::parse(R"({"groups": [{"id": "grp_reload", "title": "Checkout failed",
        "tags": {"tenant": "acme", "agent_stage": "checkout"}, "events": 3}]})"),
        "ifr_pk_proj_reload_0123456789abcdef");
    ASSERT_TRUE(sim_);
    SetEnv("HOOK_SECRET", kHookSecret);
    SetEnv("QUELL_TOKEN", kToken);
    SetEnv("SLACK_BOT_TOKEN", "xoxb-reload-e2e");
    SetEnv("PD_ROUTING_KEY", "R0UT1NGKEYRELOAD");
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  // Routed to `hook_name` at `hook`; a Slack and a PagerDuty channel that carry nothing but
  // take callbacks, each secret read from its own file (where a rotation writes the next).
  void WriteConfig(const std::string& hook_name, const testing::WebhookReceiver& hook,
                   const Secrets& secrets, const std::string& listen) {
    std::ofstream(dir_ / "slack.secret") << secrets.slack;
    std::ofstream(dir_ / "pd.secret") << secrets.pagerduty;
    std::ofstream(dir_ / "ack.secret") << secrets.ack;
    std::ofstream(config_)
        << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
        << "infrai: {base_url: \"${INFRAI_BASE_URL}\", retry: {max_attempts: 1}}\n"
        << "defaults: {channels: [" << hook_name << "]}\n"
        << "conditions:\n"
        << "  - {name: agent-errors, type: error_groups, interval: 1s}\n"
        << "channels:\n"
        << "  - {name: " << hook_name << ", type: webhook, url: \"" << hook.Url()
        << "\", secret_env: HOOK_SECRET, timeout: 2s, initial_backoff: 100ms}\n"
        << "  - {name: chat, type: slack, bot_token_env: SLACK_BOT_TOKEN, channel: C42, "
        << "api_url: \"http://127.0.0.1:9\", signing_secret_file: \""
        << (dir_ / "slack.secret").string() << "\"}\n"
        << "  - {name: pager, type: pagerduty, url: \"http://127.0.0.1:9\", "
        << "routing_key_env: PD_ROUTING_KEY, webhook_secret_file: \""
        << (dir_ / "pd.secret").string() << "\"}\n"
        << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
        << "log: {format: json, level: info}\n"
        << "http:\n  listen: \"" << listen << "\"\n  token_env: QUELL_TOKEN\n"
        << "  public_url: https://quell.example.test\n"
        << "  ack_link_secret_file: \"" << (dir_ / "ack.secret").string() << "\"\n";
  }

  int PostPagerDuty(const std::string& secret) {
    const std::string body = R"({"event":{"id":"01","event_type":"pagey.ping"}})";
    auto r = client_->Post("/v1/pagerduty/webhook",
                           {{"X-PagerDuty-Signature", "v1=" + Hmac(secret, body)}}, body,
                           "application/json");
    return r ? r->status : -1;
  }
  int PostSlack(const std::string& secret) {
    const std::string body = "payload=%7B%22type%22%3A%22block_actions%22%7D";
    const std::string ts = std::to_string(
        std::chrono::duration_cast<seconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
    auto r = client_->Post("/v1/slack/interactivity",
                           {{"X-Slack-Request-Timestamp", ts},
                            {"X-Slack-Signature", "v0=" + Hmac(secret, "v0:" + ts + ":" + body)}},
                           body, "application/x-www-form-urlencoded");
    return r ? r->status : -1;
  }
  // GET of an ack link for the incident's first generation, signed with `secret`.
  int GetAckLink(const std::string& secret) {
    const channels::AckLinkSigner signer(secret, "https://quell.example.test",
                                         std::chrono::hours(1));
    const std::string link = signer.Link(
        kKey, 1, std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now()));
    auto r = client_->Get(link.substr(std::string("https://quell.example.test").size()));
    return r ? r->status : -1;
  }

  testing::ScratchDir dir_{"quell-reload"};
  std::string config_;
  std::filesystem::path log_;
  std::unique_ptr<sim::SimServer> sim_;
  std::unique_ptr<httplib::Client> client_;
};

// A reload that rotates every callback secret, renames the incident's channel and moves the
// listen address: the old secrets are refused and the new ones taken at once, a resolve by
// hand reaches the channel under its new name, and the log says the address needs a restart.
TEST_F(RunReloadTest, AReloadRotatesCallbackSecretsReroutesResolvesAndNamesWhatNeedsARestart) {
  testing::WebhookReceiver hook(kHookSecret);
  testing::WebhookReceiver hook2(kHookSecret);
  const Secrets old_secrets{.slack = "slack-signing-old-0a1b2c3d",
                            .pagerduty = "pd-webhook-old-4e5f6a7b",
                            .ack = "ack-link-secret-old-8c9d0e1f"};
  const Secrets new_secrets{.slack = "slack-signing-new-1122aabb",
                            .pagerduty = "pd-webhook-new-3344ccdd",
                            .ack = "ack-link-secret-new-5566eeff"};
  WriteConfig("hook", hook, old_secrets, "127.0.0.1:0");
  auto run = std::make_unique<testing::QuellRun>(config_, log_);
  ASSERT_TRUE(WaitFor([&] { return hook.DeliveredKeys().size() == 1; }, seconds(20)))
      << testing::ReadFile(log_);
  const int port = run->WaitListening();
  ASSERT_GT(port, 0) << run->Log();
  client_ = std::make_unique<httplib::Client>("127.0.0.1", port);
  ASSERT_EQ(PostPagerDuty(old_secrets.pagerduty), 200) << testing::ReadFile(log_);
  ASSERT_EQ(PostSlack(old_secrets.slack), 200) << testing::ReadFile(log_);
  ASSERT_EQ(GetAckLink(old_secrets.ack), 200) << testing::ReadFile(log_);
  ASSERT_EQ(PostPagerDuty(new_secrets.pagerduty), 401);

  WriteConfig("hook2", hook2, new_secrets, "127.0.0.1:1");
  run->Send(SIGHUP);
  ASSERT_TRUE(WaitFor([&] { return !Events(log_, "config.reloaded").empty(); }, seconds(20)))
      << testing::ReadFile(log_);

  EXPECT_EQ(PostPagerDuty(old_secrets.pagerduty), 401) << "a rotated-away secret still works";
  EXPECT_EQ(PostPagerDuty(new_secrets.pagerduty), 200);
  EXPECT_EQ(PostSlack(old_secrets.slack), 401);
  EXPECT_EQ(PostSlack(new_secrets.slack), 200);
  EXPECT_EQ(GetAckLink(old_secrets.ack), 403);
  EXPECT_EQ(GetAckLink(new_secrets.ack), 200);

  // The resolve goes to the channel the running config routes to: hook2, not the old name.
  auto resolved = client_->Post(std::string("/v1/incidents/") + kKey + "/resolve",
                                {{"Authorization", std::string("Bearer ") + kToken}},
                                R"({"by": "alice"})", "application/json");
  ASSERT_TRUE(resolved);
  ASSERT_EQ(resolved->status, 200) << resolved->body;
  const json answer = json::parse(resolved->body);
  ASSERT_EQ(answer["outbox"].size(), 1U) << answer.dump();
  EXPECT_EQ(answer["outbox"][0]["channel"], "hook2") << answer.dump();
  ASSERT_TRUE(WaitFor([&] { return hook2.DeliveredKeys().size() == 1; }, seconds(20)))
      << testing::ReadFile(log_);
  const json delivered = json::parse(hook2.Requests().back().body);
  EXPECT_EQ(delivered["transition"], "resolve") << delivered.dump();
  EXPECT_EQ(hook.DeliveredKeys().size(), 1U) << "only the open went to the old name";

  // The listen address stays until a restart, and the log says so, naming the setting.
  const auto restart = Events(log_, "config.restart_needed");
  ASSERT_EQ(restart.size(), 1U) << testing::ReadFile(log_);
  EXPECT_EQ(restart[0]["settings"], "http.listen");
  EXPECT_EQ(restart[0]["level"], "warn");
  EXPECT_EQ(HttpGet(port, "/healthz"), 200) << "still on the port it bound";
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log_);
  const std::string text = testing::ReadFile(log_);
  for (const Secrets& s : {old_secrets, new_secrets}) {
    for (const std::string& secret : {s.slack, s.pagerduty, s.ack}) {
      EXPECT_EQ(text.find(secret), std::string::npos) << "a secret in the log";
    }
  }
}

// `config check --running` says before the reload what the reload's log would: which changes
// only a restart applies.
TEST_F(RunReloadTest, ConfigCheckAgainstTheRunningFileNamesTheChangesThatNeedARestart) {
  testing::WebhookReceiver hook(kHookSecret);
  const Secrets secrets{.slack = "slack-signing-0a1b2c3d",
                        .pagerduty = "pd-webhook-4e5f6a7b",
                        .ack = "ack-link-secret-8c9d0e1f"};
  WriteConfig("hook", hook, secrets, "127.0.0.1:8787");
  const std::string running = (dir_ / "running.yaml").string();
  std::filesystem::copy_file(config_, running);
  auto r = testing::RunProcess({testing::QuellBinary(), "config", "check", "-c", config_,
                                "--running", running, "--offline"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("config check: a reload (SIGHUP) applies every change from " + running),
            std::string::npos)
      << r.out;

  // A new channel name, a new secret and a new address: only the address needs the restart.
  WriteConfig(
      "hook2", hook,
      {.slack = "slack-signing-rotated-99", .pagerduty = secrets.pagerduty, .ack = secrets.ack},
      "127.0.0.1:8788");
  r = testing::RunProcess({testing::QuellBinary(), "config", "check", "-c", config_, "--running",
                           running, "--offline"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("config check: a reload (SIGHUP) keeps http.listen as " + running +
                       " has them: restart to apply them"),
            std::string::npos)
      << r.out;
}

// Two instances on one SQLite file. The holder's poll fails while another process holds the
// write lock; it is paused while the lock goes, the other instance takes its lease, and it
// comes back as a standby. A standby never writes a poll, so only something else can show it
// that the store works again: its readiness must come back.
TEST_F(RunReloadTest, AStandbyWhosePollFailedInAnOutageIsReadyAgainOnceTheStoreIs) {
  testing::WebhookReceiver hook(kHookSecret);
  const std::string db = (dir_ / "quell.db").string();
  std::ofstream(config_) << "store: \"sqlite:" << db << "?busy_timeout_ms=200\"\n"
                         << "infrai: {base_url: \"${INFRAI_BASE_URL}\", "
                         << "retry: {max_attempts: 1}}\n"
                         << "defaults: {channels: [hook]}\n"
                         << "conditions:\n"
                         << "  - {name: agent-errors, type: error_groups, interval: 1s}\n"
                         << "channels:\n"
                         << "  - {name: hook, type: webhook, url: \"" << hook.Url()
                         << "\", secret_env: HOOK_SECRET}\n"
                         << "polling: {lease: 2s}\n"
                         << "log: {format: json, level: info}\n"
                         << "http: {listen: \"127.0.0.1:0\"}\n";
  const auto start = [&](const std::filesystem::path& log) {
    return std::make_unique<testing::QuellRun>(config_, log,
                                               std::vector<std::string>{"--no-dispatch"});
  };
  const auto role_is = [](int port, const std::string& role) {
    std::string body;
    return HttpGet(port, "/healthz", &body) == 200 &&
           body.find("\"role\":\"" + role + "\"") != std::string::npos;
  };
  const std::filesystem::path first_log = dir_ / "first.log";
  const std::filesystem::path second_log = dir_ / "second.log";
  auto first = start(first_log);
  const int first_port = first->WaitListening();
  ASSERT_GT(first_port, 0) << testing::ReadFile(first_log);
  ASSERT_TRUE(WaitFor([&] { return role_is(first_port, "polling"); }, seconds(20)))
      << testing::ReadFile(first_log);
  auto second = start(second_log);
  const int second_port = second->WaitListening();
  ASSERT_GT(second_port, 0) << testing::ReadFile(second_log);
  ASSERT_TRUE(WaitFor([&] { return role_is(second_port, "standby"); }, seconds(20)))
      << testing::ReadFile(second_log);

  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::string body;
  const bool poll_failed = WaitFor(
      [&] {
        return HttpGet(first_port, "/readyz", &body) == 503 &&
               body.find("poll: ") != std::string::npos;
      },
      seconds(20));
  if (poll_failed) first->Send(SIGSTOP);
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  ASSERT_TRUE(poll_failed) << body << testing::ReadFile(first_log);
  ASSERT_TRUE(WaitFor([&] { return role_is(second_port, "polling"); }, seconds(20)))
      << testing::ReadFile(second_log);
  first->Send(SIGCONT);
  ASSERT_TRUE(WaitFor([&] { return role_is(first_port, "standby"); }, seconds(20)))
      << testing::ReadFile(first_log);
  EXPECT_TRUE(WaitFor([&] { return HttpGet(first_port, "/readyz", &body) == 200; }, seconds(10)))
      << "the standby stayed unready after the store recovered: " << body;
  EXPECT_EQ(HttpGet(second_port, "/readyz"), 200);
  EXPECT_EQ(first->Signal(SIGTERM), 0) << testing::ReadFile(first_log);
  EXPECT_EQ(second->Signal(SIGTERM), 0) << testing::ReadFile(second_log);
}

}  // namespace
}  // namespace quell
