// What quell shows or sends is redacted the same way everywhere, checked on a real `quell run`
// (a child process on a real SQLite file): pushed labels holding a password, an e-mail and a
// phone number; a webhook URL whose query holds a key; an Infrai stand-in (quell-sim in
// process) whose error answer quotes an API key and an e-mail.
#include <gtest/gtest.h>
#include <httplib.h>

#include <array>
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
#include "free_port.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "webhook_receiver.h"

namespace quell {
namespace run_redaction_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::Events;
using testing::ReadFile;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kToken = "redaction-e2e-token-3d9a51";
constexpr const char* kHookSecret = "whsec-redaction-e2e-77c2";
constexpr const char* kKey = "acme:LoginFailures";
constexpr const char* kKeyPath = "acme%3ALoginFailures";

// What a pushed alert carried that nothing may keep: a password, an e-mail, a phone number.
constexpr std::array<const char*, 4> kPushed = {"hunter2-e2e-pw", "alice.e2e@example.com",
                                                "+1 415 555 0134", "555 0134"};
constexpr const char* kUrlKey = "SECRETHOOKKEY42";

class RunRedactionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetEnv("QUELL_OPS_TOKEN", kToken);
    SetEnv("HOOK_SECRET", kHookSecret);
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
  }
  void TearDown() override {
    if (run_) run_->Signal(SIGTERM);
    if (sim_) sim_->Stop();
  }

  void Start(const std::string& config) {
    std::ofstream(config_) << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
                           << config << "log: {format: json, level: info}\n"
                           << "http:\n  listen: \"127.0.0.1:0\"\n  token_env: QUELL_OPS_TOKEN\n"
                           << "  open_reads: true\n";
    run_ = std::make_unique<testing::QuellRun>(config_, log_);
    ASSERT_TRUE(run_->running());
    port_ = run_->WaitListening();
    ASSERT_GT(port_, 0) << run_->Log();
  }

  // GET `path` with the token: the body, empty unless 200.
  std::string Get(const std::string& path) const {
    httplib::Client client("127.0.0.1", port_);
    auto answer = client.Get(path, {{"Authorization", std::string("Bearer ") + kToken}});
    return answer && answer->status == 200 ? answer->body : std::string();
  }

  // Every byte quell keeps on disk: the database, its WAL and the log.
  std::string Stored() const {
    std::string all;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
      if (entry.path().filename() != "quell.yaml") all += ReadFile(entry.path());
    }
    return all;
  }

  testing::ScratchDir dir_{"quell-redaction"};
  std::string config_;
  std::filesystem::path log_;
  std::unique_ptr<testing::QuellRun> run_;
  std::unique_ptr<sim::SimServer> sim_;
  int port_ = 0;
};

// The issue: pushed labels (password=, an e-mail, a phone number) were stored, shown and sent
// in webhook bodies; a webhook URL's ?apikey= was in the outbox error and the timeline.
TEST_F(RunRedactionTest, PushedLabelsAndAWebhooksQueryKeyAreKeptAndShownRedacted) {
  testing::WebhookReceiver hook(kHookSecret);
  auto closed = testing::FreeLoopbackPort();  // nothing listens: every send is refused
  ASSERT_TRUE(closed.ok());
  const std::string dead_url =
      "http://127.0.0.1:" + std::to_string(*closed) + "/hook?apikey=" + kUrlKey + "&team=ops";
  Start(
      "conditions:\n"
      "  - name: prom-alerts\n"
      "    type: push\n"
      "    key: \"{labels.tenant}:{labels.alertname}\"\n"
      "    stale_after: 10m\n"
      "    interval: 1s\n"
      "    channels: [hook, down]\n"
      "channels:\n"
      "  - {name: hook, type: webhook, url: \"" +
      hook.Url() +
      "\", secret_env: HOOK_SECRET}\n"
      "  - {name: down, type: webhook, url: \"" +
      dead_url +
      "\", secret_env: HOOK_SECRET, timeout: 1s, initial_backoff: 100ms, "
      "max_backoff: 200ms}\n");
  ASSERT_FALSE(HasFatalFailure());

  const json payload = {
      {"version", "4"},
      {"status", "firing"},
      {"alerts", json::array({{{"status", "firing"},
                               {"labels",
                                {{"alertname", "LoginFailures"},
                                 {"tenant", "acme"},
                                 {"password", kPushed[0]},
                                 {"user", kPushed[1]},
                                 {"phone", kPushed[2]}}},
                               {"annotations", {{"summary", "logins failing"}}}}})}};
  httplib::Client client("127.0.0.1", port_);
  auto pushed = client.Post("/v1/inputs/alertmanager?condition=prom-alerts",
                            {{"Authorization", std::string("Bearer ") + kToken}}, payload.dump(),
                            "application/json");
  ASSERT_TRUE(pushed);
  ASSERT_EQ(pushed->status, 200) << pushed->body;

  // The webhook gets the open; the dead hook fails at least twice (its error and timeline).
  ASSERT_TRUE(WaitFor([&] { return !hook.Requests().empty(); }, seconds(20))) << ReadFile(log_);
  const std::string incident_path = std::string("/v1/incidents/") + kKeyPath;
  ASSERT_TRUE(WaitFor(
      [&] {
        const json timeline = json::parse(Get(incident_path + "/timeline"), nullptr, false);
        return timeline.is_object() && timeline["attempts"].size() >= 2;
      },
      seconds(20)))
      << Get(incident_path + "/timeline") << ReadFile(log_);

  const std::string incident = Get(incident_path);
  const std::string timeline = Get(incident_path + "/timeline");
  const std::string outbox = Get("/v1/outbox");
  const std::string listing = Get("/v1/incidents");
  ASSERT_FALSE(incident.empty());
  const json detail = json::parse(incident);
  EXPECT_EQ(detail["incident"]["key"], kKey) << incident;
  EXPECT_EQ(detail["incident"]["labels"]["password"], "[secret]") << incident;
  EXPECT_EQ(detail["incident"]["labels"]["alertname"], "LoginFailures") << incident;
  EXPECT_NE(timeline.find("apikey=[redacted]"), std::string::npos) << timeline;
  EXPECT_NE(outbox.find("apikey=[redacted]"), std::string::npos) << outbox;

  std::string sent;
  for (const testing::ReceivedRequest& request : hook.Requests()) sent += request.body;
  EXPECT_NE(sent.find("LoginFailures"), std::string::npos) << sent;
  for (const std::string leak : kPushed) {
    EXPECT_EQ(incident.find(leak), std::string::npos) << leak << " in " << incident;
    EXPECT_EQ(listing.find(leak), std::string::npos) << leak << " in " << listing;
    EXPECT_EQ(sent.find(leak), std::string::npos) << leak << " in " << sent;
    EXPECT_EQ(Stored().find(leak), std::string::npos) << leak << " kept on disk";
  }
  for (const std::string& shown : {incident, timeline, outbox, Stored()}) {
    EXPECT_EQ(shown.find(kUrlKey), std::string::npos) << shown;
  }
}

// The issue: an upstream error quoting an API key and an e-mail was in 12 log lines,
// /v1/sources and the page.
TEST_F(RunRedactionTest, AnUpstreamErrorQuotingAKeyAndAnEmailIsShownRedacted) {
  const std::string api_key = "ifr_pk_live_e2e0123456789abcdef";
  const std::string email = "billing.e2e@acme.example";
  sim::SimOptions options;
  options.scenario = json::parse(R"({"groups": [{"id": "grp_run", "title": "Checkout failed",
      "tags": {"tenant": "acme", "agent_stage": "checkout"}, "events": 3}]})");
  sim::Fault fault;
  fault.route = "errors.groups";
  fault.status = 403;
  fault.message = "key " + api_key + " of " + email + " is suspended";
  fault.hint = "write to " + email;
  options.faults.push_back(fault);
  sim_ = std::make_unique<sim::SimServer>(std::move(options));
  auto sim_port = sim_->Start();
  ASSERT_TRUE(sim_port.ok()) << sim_port.error().message;
  SetEnv("INFRAI_BASE_URL", "http://127.0.0.1:" + std::to_string(*sim_port));
  SetEnv("INFRAI_API_KEY", "ifr_pk_proj_redaction_e2e_0123456789");
  Start(std::string(testing::kInfraiSection) +
        "conditions:\n  - {name: agent-errors, type: error_groups, interval: 1s}\n");
  ASSERT_FALSE(HasFatalFailure());

  ASSERT_TRUE(WaitFor(
      [&] {
        size_t failed = 0;
        for (const json& line : Events(log_, "poll.condition")) {
          if (!line.value("source_error", "").empty()) ++failed;
        }
        return failed >= 3;
      },
      seconds(30)))
      << ReadFile(log_);
  const std::string sources = Get("/v1/sources");
  const std::string status = Get("/v1/status");
  const json answer = json::parse(sources, nullptr, false);
  ASSERT_TRUE(answer.is_object()) << sources;
  const std::string source_error =
      answer["conditions"][0]["last_cycle"].value("source_error", std::string());
  EXPECT_NE(source_error.find("HTTP 403"), std::string::npos) << sources;
  EXPECT_NE(source_error.find("is suspended"), std::string::npos) << sources;
  const std::string log = ReadFile(log_);
  for (const std::string& leak : {api_key, email, std::string("e2e0123456789abcdef")}) {
    EXPECT_EQ(log.find(leak), std::string::npos) << leak << " in the log:\n" << log;
    EXPECT_EQ(sources.find(leak), std::string::npos) << leak << " in " << sources;
    EXPECT_EQ(status.find(leak), std::string::npos) << leak << " in " << status;
  }
}

}  // namespace run_redaction_e2e_test
}  // namespace quell
