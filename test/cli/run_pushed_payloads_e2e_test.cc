// Grafana's and Datadog's own webhook payloads through `quell run`: each POSTed as the sender
// sends it (Grafana's contact point of type Webhook; Datadog's webhook integration with the
// payload template of docs/inputs.md), applied to a push condition, and delivered to a loopback
// webhook receiver as a message people read.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>

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
#include "quell_run.h"
#include "webhook_receiver.h"

namespace quell {
namespace run_pushed_payloads_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::WaitFor;

constexpr const char* kToken = "pushed-payloads-token-3a9c55";

// Grafana's webhook contact point payload, in the shape Grafana documents for it
// (https://grafana.com/docs/grafana/latest/alerting/configure-notifications/manage-contact-points/integrations/webhook-notifier/):
// Alertmanager's fields plus orgId, title, state, message and per alert values, valueString,
// silenceURL, dashboardURL and panelURL.
constexpr const char* kGrafanaPayload = R"json({
  "receiver": "quell",
  "status": "firing",
  "orgId": 1,
  "alerts": [{
    "status": "firing",
    "labels": {"alertname": "AnswerLatencyHigh", "tenant": "acme", "grafana_folder": "support"},
    "annotations": {
      "summary": "Support agent answers take 9.2s at p99 for acme",
      "description": "p99 answer latency has been above 5s for 10 minutes",
      "runbook_url": "https://runbooks.example.com/answer-latency"
    },
    "startsAt": "2026-12-07T09:00:00Z",
    "endsAt": "0001-01-01T00:00:00Z",
    "generatorURL": "https://grafana.example.com/alerting/grafana/f3a1/view",
    "fingerprint": "5ab1c0d3e9f27a41",
    "silenceURL": "https://grafana.example.com/alerting/silence/new?matcher=alertname%3DAnswerLatencyHigh",
    "dashboardURL": "https://grafana.example.com/d/support-agents",
    "panelURL": "https://grafana.example.com/d/support-agents?viewPanel=4",
    "values": {"B": 9.2, "C": 1},
    "valueString": "[ var='B' labels={tenant=acme} value=9.2 ], [ var='C' labels={tenant=acme} value=1 ]"
  }],
  "groupLabels": {"alertname": "AnswerLatencyHigh"},
  "commonLabels": {"alertname": "AnswerLatencyHigh", "tenant": "acme"},
  "commonAnnotations": {},
  "externalURL": "https://grafana.example.com/",
  "version": "1",
  "groupKey": "{}/{}:{alertname=\"AnswerLatencyHigh\"}",
  "truncatedAlerts": 0,
  "title": "[FIRING:1] AnswerLatencyHigh (acme)",
  "state": "alerting",
  "message": "**Firing**\n\nValue: B=9.2, C=1\nLabels:\n - alertname = AnswerLatencyHigh\n - tenant = acme\n"
})json";

// What Datadog's webhook integration sends with docs/inputs.md's payload template, its
// variables filled in as Datadog documents them.
json DatadogPayload(const std::string& transition) {
  return {{"alert_id", "4711"},
          {"alert_transition", transition},
          {"alert_type", transition == "Recovered" ? "success" : "error"},
          {"alert_scope", "host:web-1,env:prod"},
          {"alert_title", "[" + transition + " on {host:web-1,env:prod}] Support agent errors"},
          {"alert_status", "trace.http.request.errors over host:web-1 was > 5 on average"},
          {"alert_priority", "P2"},
          {"event_title", "[" + transition + "] Support agent errors"},
          {"event_msg", "Answer errors are up on web-1."},
          {"link", "https://app.datadoghq.com/event/event?id=7654321"},
          {"date", "1796634000000"},
          {"id", "7654321"}};
}

class PushedPayloadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::SetEnv("QUELL_OPS_TOKEN", kToken);
    const std::string config = (dir_ / "quell.yaml").string();
    std::ofstream(config) << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
                          << "defaults: {healthy_polls_to_close: 1, channels: [hook], "
                             "interval: 1s}\n"
                          << "conditions:\n"
                          << "  - name: grafana-alerts\n"
                          << "    type: push\n"
                          << "    key: \"{labels.tenant}:{labels.alertname}\"\n"
                          << "    stale_after: 10m\n"
                          << "  - name: datadog-alerts\n"
                          << "    type: push\n"
                          << "    key: \"dd:{labels.monitor_id}:{labels.scope|all}\"\n"
                          << "    stale_after: 10m\n"
                          << "channels:\n"
                          << "  - {name: hook, type: webhook, url: \"" << hook_.Url()
                          << "\", signing: off}\n"
                          << "log: {format: json, level: info}\n"
                          << "http:\n  listen: \"127.0.0.1:0\"\n  token_env: QUELL_OPS_TOKEN\n";
    log_ = dir_ / "run.log";
    run_ = std::make_unique<testing::QuellRun>(config, log_);
    port_ = run_->WaitListening();
    ASSERT_GT(port_, 0) << run_->Log();
  }
  void TearDown() override {
    if (run_) {
      EXPECT_TRUE(WIFEXITED(run_->Signal(SIGTERM))) << testing::ReadFile(log_);
    }
  }

  int Post(const std::string& target, const std::string& body) {
    httplib::Client client("127.0.0.1", port_);
    auto answer = client.Post(target.c_str(), {{"Authorization", std::string("Bearer ") + kToken}},
                              body, "application/json");
    return answer ? answer->status : -1;
  }

  // The messages delivered for `key`, as the webhook got them.
  std::vector<json> Messages(const std::string& key) const {
    std::vector<json> out;
    for (const testing::ReceivedRequest& request : hook_.Requests()) {
      if (!request.authorized || request.duplicate) continue;
      const json body = json::parse(request.body, nullptr, false);
      if (body.is_object() && body.value("key", "") == key) out.push_back(body);
    }
    return out;
  }

  testing::ScratchDir dir_{"quell-pushed"};
  std::filesystem::path log_;
  testing::WebhookReceiver hook_{""};
  std::unique_ptr<testing::QuellRun> run_;
  int port_ = 0;
};

TEST_F(PushedPayloadsTest, GrafanasPayloadOpensAnIncidentWhoseMessageCarriesItsSummary) {
  ASSERT_EQ(Post("/v1/inputs/alertmanager?condition=grafana-alerts", kGrafanaPayload), 200)
      << testing::ReadFile(log_);
  const std::string key = "acme:AnswerLatencyHigh";
  ASSERT_TRUE(WaitFor([&] { return Messages(key).size() == 1; }, seconds(20)))
      << testing::ReadFile(log_);
  const json message = Messages(key)[0];
  EXPECT_EQ(message["transition"], "open");
  const std::string subject = message["message"]["subject"];
  const std::string body = message["message"]["body"];
  // As people read it: the summary in the subject, the description and runbook in the text,
  // no JSON of the alert, and the alert's own start as "since".
  EXPECT_NE(subject.find("Support agent answers take 9.2s at p99 for acme"), std::string::npos)
      << subject;
  EXPECT_NE(body.find("Support agent answers take 9.2s at p99 for acme"), std::string::npos)
      << body;
  EXPECT_NE(body.find("p99 answer latency has been above 5s for 10 minutes"), std::string::npos)
      << body;
  EXPECT_NE(body.find("https://runbooks.example.com/answer-latency"), std::string::npos) << body;
  // The panel it fired on, as the message's source link.
  EXPECT_NE(body.find("source: https://grafana.example.com/d/support-agents?viewPanel=4"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("2026-12-07 09:00 UTC"), std::string::npos) << body;
  EXPECT_EQ(body.find("\"annotations\""), std::string::npos) << body;
  EXPECT_EQ(body.find("valueString"), std::string::npos) << body;
}

TEST_F(PushedPayloadsTest, DatadogsWebhookOpensAndResolvesOneIncidentPerMonitorGroup) {
  ASSERT_EQ(Post("/v1/inputs/datadog?condition=datadog-alerts", DatadogPayload("Triggered").dump()),
            200)
      << testing::ReadFile(log_);
  const std::string key = "dd:4711:host:web-1,env:prod";
  ASSERT_TRUE(WaitFor([&] { return Messages(key).size() == 1; }, seconds(20)))
      << testing::ReadFile(log_);
  const json open = Messages(key)[0];
  EXPECT_EQ(open["transition"], "open");
  const std::string text =
      open["message"]["subject"].get<std::string>() + open["message"]["body"].get<std::string>();
  EXPECT_NE(text.find("[Triggered on {host:web-1,env:prod}] Support agent errors"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Answer errors are up on web-1."), std::string::npos) << text;

  // No Data proves nothing: accepted, and nothing changes.
  ASSERT_EQ(Post("/v1/inputs/datadog?condition=datadog-alerts", DatadogPayload("No Data").dump()),
            200);
  ASSERT_EQ(Post("/v1/inputs/datadog?condition=datadog-alerts", DatadogPayload("Recovered").dump()),
            200);
  ASSERT_TRUE(WaitFor([&] { return Messages(key).size() == 2; }, seconds(20)))
      << testing::ReadFile(log_);
  EXPECT_EQ(Messages(key)[1]["transition"], "resolve");

  // A payload without the template's required variables is refused, naming the field.
  EXPECT_EQ(Post("/v1/inputs/datadog?condition=datadog-alerts", R"({"alert_title":"x"})"), 400);
}

}  // namespace run_pushed_payloads_e2e_test
}  // namespace quell
