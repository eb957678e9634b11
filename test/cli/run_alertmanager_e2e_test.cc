// A real Alertmanager pointed at `quell run`, as docs/inputs.md tells a user to: alerts posted to
// Alertmanager the way Prometheus posts them reach quell as Alertmanager's own webhook
// notifications, open one incident keyed by their labels, and its resolved notification resolves
// it; quell's own outbox carries both to a webhook. The daemon is a child process on a real
// SQLite file, with a push-only config (no source section).
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alertmanager_server.h"
#include "daemon_probe.h"
#include "quell/core/text/time.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"
#include "webhook_receiver.h"

namespace quell {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kToken = "alertmanager-e2e-token-8c41d2";
constexpr const char* kHookSecret = "whsec-alertmanager-e2e-51f0";
constexpr const char* kKey = "acme:HighErrorRate";

std::string Rfc3339(std::chrono::system_clock::time_point at) {
  return core::FormatRfc3339(std::chrono::time_point_cast<core::Duration>(at));
}

// What `GET /v1/incidents/{key}` answers for kKey: the incident object, empty when none.
json Incident(int port) {
  httplib::Client client("127.0.0.1", port);
  auto answer = client.Get("/v1/incidents/acme%3AHighErrorRate",
                           {{"Authorization", std::string("Bearer ") + kToken}});
  if (!answer || answer->status != 200) return json::object();
  const json body = json::parse(answer->body, nullptr, false);
  return body.is_object() && body.contains("incident") ? body["incident"] : json::object();
}

// The transitions the webhook received for kKey, in order ("open", "resolve").
std::vector<std::string> HookTransitions(const testing::WebhookReceiver& hook) {
  std::vector<std::string> out;
  for (const testing::ReceivedRequest& request : hook.Requests()) {
    if (!request.authorized || request.duplicate) continue;
    const json body = json::parse(request.body, nullptr, false);
    if (body.is_object() && body.value("key", "") == kKey) {
      out.push_back(body.value("transition", ""));
    }
  }
  return out;
}

TEST(RunAlertmanagerE2eTest, AlertmanagersNotificationsOpenAndResolveOneIncidentByLabels) {
  if (std::string why = testing::AlertmanagerServer::Unavailable(); !why.empty()) {
    if (std::getenv("CI") != nullptr) FAIL() << "CI=true but " << why;
    GTEST_SKIP() << why;
  }
  const testing::ScratchDir dir("quell-run-alertmanager");
  SetEnv("QUELL_OPS_TOKEN", kToken);
  SetEnv("HOOK_SECRET", kHookSecret);
  testing::WebhookReceiver hook(kHookSecret);
  const std::string config = (dir / "quell.yaml").string();
  std::ofstream(config) << "store: sqlite:" << (dir / "quell.db").string() << "\n"
                        << "conditions:\n"
                        << "  - name: prom-alerts\n"
                        << "    type: push\n"
                        << "    key: \"{labels.tenant}:{labels.alertname}\"\n"
                        << "    stale_after: 10m\n"
                        << "    healthy_polls_to_close: 1\n"
                        << "    interval: 1s\n"
                        << "    channels: [hook]\n"
                        << "channels:\n"
                        << "  - {name: hook, type: webhook, url: \"" << hook.Url()
                        << "\", secret_env: HOOK_SECRET}\n"
                        << "log: {format: json, level: info}\n"
                        << "http:\n  listen: \"127.0.0.1:0\"\n  token_env: QUELL_OPS_TOKEN\n";
  const std::filesystem::path log = dir / "run.log";
  auto run = std::make_unique<testing::QuellRun>(config, log);
  ASSERT_TRUE(run->running());
  const int port = run->WaitListening();
  ASSERT_GT(port, 0) << run->Log();

  auto alertmanager =
      testing::AlertmanagerServer::Start({.url = "http://127.0.0.1:" + std::to_string(port) +
                                                 "/v1/inputs/alertmanager?condition=prom-alerts",
                                          .credentials = kToken});
  ASSERT_TRUE(alertmanager.ok()) << alertmanager.error().message;
  const auto now = std::chrono::system_clock::now();
  const std::string starts_at = Rfc3339(now - std::chrono::minutes(2));
  const json alert = {
      {"labels", {{"alertname", "HighErrorRate"}, {"tenant", "acme"}, {"severity", "critical"}}},
      {"annotations", {{"summary", "checkout error rate above 5%"}}},
      {"startsAt", starts_at},
      {"generatorURL", "http://prometheus.example:9090/graph?g0.expr=errors"}};
  ASSERT_TRUE((*alertmanager)->PostAlerts(json::array({alert}).dump()).ok());

  // Alertmanager waits group_wait (1s), then notifies quell; the dispatcher sends the open.
  ASSERT_TRUE(WaitFor([&] { return Incident(port).value("status", "") == "open"; }, seconds(30)))
      << testing::ReadFile(log) << (*alertmanager)->LogTail();
  const json opened = Incident(port);
  EXPECT_EQ(opened["condition"], "prom-alerts");
  EXPECT_EQ(opened["first_seen_at"], starts_at) << "startsAt is the first-seen time";
  EXPECT_EQ(opened["labels"]["severity"], "critical") << opened;
  ASSERT_TRUE(WaitFor([&] { return !HookTransitions(hook).empty(); }, seconds(20)))
      << testing::ReadFile(log);

  // Without the token quell refuses Alertmanager's payload and changes nothing.
  httplib::Client bare("127.0.0.1", port);
  const json resolved_payload = {{"version", "4"},
                                 {"status", "resolved"},
                                 {"receiver", "quell"},
                                 {"alerts", json::array({{{"status", "resolved"},
                                                          {"labels", alert["labels"]},
                                                          {"annotations", json::object()},
                                                          {"startsAt", starts_at},
                                                          {"endsAt", Rfc3339(now)}}})}};
  auto refused = bare.Post("/v1/inputs/alertmanager?condition=prom-alerts", resolved_payload.dump(),
                           "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  EXPECT_EQ(Incident(port)["version"], opened["version"]);

  // The alert ends: Alertmanager sends its resolved notification, which closes the incident.
  json ended = alert;
  ended["endsAt"] = Rfc3339(std::chrono::system_clock::now() - seconds(1));
  ASSERT_TRUE((*alertmanager)->PostAlerts(json::array({ended}).dump()).ok());
  ASSERT_TRUE(
      WaitFor([&] { return Incident(port).value("status", "") == "resolved"; }, seconds(30)))
      << testing::ReadFile(log) << (*alertmanager)->LogTail();
  ASSERT_TRUE(WaitFor([&] { return HookTransitions(hook).size() >= 2; }, seconds(20)))
      << testing::ReadFile(log);
  EXPECT_EQ(HookTransitions(hook), (std::vector<std::string>{"open", "resolve"}));
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log);
}

// The examples a user starts from: quell's push-only config passes `config check`, and the
// Alertmanager receiver next to it passes Alertmanager's own check.
TEST(RunAlertmanagerE2eTest, TheExamplesPassQuellsAndAlertmanagersChecks) {
  if (std::string why = testing::AlertmanagerServer::Unavailable(); !why.empty()) {
    if (std::getenv("CI") != nullptr) FAIL() << "CI=true but " << why;
    GTEST_SKIP() << why;
  }
  const std::string examples = testing::SourcePath("examples/");
  SetEnv("QUELL_HTTP_TOKEN", kToken);
  const testing::ProcessResult quell = testing::RunProcess(
      {testing::QuellBinary(), "config", "check", "-c", examples + "alertmanager.yaml"});
  EXPECT_EQ(quell.exit_code, 0) << quell.out << quell.err;
  EXPECT_NE(quell.out.find("1 push conditions"), std::string::npos) << quell.out;
  const testing::ProcessResult amtool = testing::RunProcess(
      {"/usr/bin/amtool", "check-config", examples + "alertmanager-receiver.yml"});
  EXPECT_EQ(amtool.exit_code, 0) << amtool.out << amtool.err;
  EXPECT_NE(amtool.out.find("SUCCESS"), std::string::npos) << amtool.out;
}

// The receiver a user copies caps the alerts per request as docs/inputs.md says to: 0 would
// put a whole group in one request, and a large group over quell's 1 MiB limit is refused (413).
TEST(RunAlertmanagerE2eTest, TheExampleReceiverCapsTheAlertsPerRequestAsTheDocsSay) {
  const auto max_alerts = [](const std::string& path) -> long {
    const std::string text = testing::ReadFile(path);
    const size_t at = text.find("max_alerts:");
    if (at == std::string::npos) return -1;
    return std::stol(text.substr(at + 11));
  };
  const std::string root = testing::SourcePath(".");
  const long documented = max_alerts(root + "/docs/inputs.md");
  EXPECT_GT(documented, 0);
  EXPECT_EQ(max_alerts(root + "/examples/alertmanager-receiver.yml"), documented);
}

}  // namespace
}  // namespace quell
