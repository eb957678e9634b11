#include "quell/adapters/inputs/alertmanager_payload.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace quell::inputs {
namespace {

// Alertmanager's documented webhook payload (version 4), two alerts.
constexpr const char* kAlertmanager = R"({
  "version": "4", "groupKey": "{}:{alertname=\"DiskFull\"}", "truncatedAlerts": 0,
  "status": "firing", "receiver": "quell",
  "groupLabels": {"alertname": "DiskFull"}, "commonLabels": {"alertname": "DiskFull"},
  "commonAnnotations": {}, "externalURL": "http://alertmanager:9093",
  "alerts": [
    {"status": "firing",
     "labels": {"tenant": "acme", "alertname": "DiskFull", "instance": "db-1:9100"},
     "annotations": {"summary": "disk 97% full", "runbook_url": "https://x/rb",
                     "password": "hunter2"},
     "startsAt": "2026-12-02T08:55:00.123456789+01:00", "endsAt": "0001-01-01T00:00:00Z",
     "generatorURL": "http://prometheus:9090/graph?g0.expr=disk", "fingerprint": "1a30ba71cca2921f"},
    {"status": "resolved", "labels": {"alertname": "DiskFull", "tenant": "beta"},
     "annotations": {}, "startsAt": "0001-01-01T00:00:00Z", "endsAt": "2026-12-02T09:00:00Z"}
  ]})";

// Grafana's webhook contact point: the same shape with fields of its own.
constexpr const char* kGrafana = R"({
  "receiver": "My Super Webhook", "status": "firing", "orgId": 1, "title": "[FIRING:1]",
  "state": "alerting", "message": "...", "version": "1", "groupKey": "{}", "truncatedAlerts": 0,
  "alerts": [{"status": "firing", "labels": {"alertname": "High memory usage", "team": "blue"},
    "annotations": {"description": "high memory"}, "startsAt": "2021-10-12T09:51:03.157076+02:00",
    "endsAt": "0001-01-01T00:00:00Z", "generatorURL": "https://play.grafana.org/alerting/1/edit",
    "fingerprint": "c6eadffa33fcdf37", "silenceURL": "https://x", "dashboardURL": "",
    "panelURL": "", "values": {"B": 44.2, "C": 1}, "valueString": "[ var='B' value=44.2 ]"}]})";

TEST(AlertmanagerPayloadTest, ReadsEachAlertWithSortedLabelsStartAndRedactedEvidence) {
  auto alerts = ParseAlertmanagerPayload(kAlertmanager, {});
  ASSERT_TRUE(alerts.ok()) << alerts.error().message;
  ASSERT_EQ(alerts->size(), 2u);
  const core::PushedAlert& a = (*alerts)[0];
  EXPECT_TRUE(a.firing);
  EXPECT_EQ(
      a.labels,
      (core::Labels{{"alertname", "DiskFull"}, {"instance", "db-1:9100"}, {"tenant", "acme"}}));
  EXPECT_EQ(a.annotations.front().first, "password");
  ASSERT_TRUE(a.starts_at);
  EXPECT_EQ(*a.starts_at, *core::ParseRfc3339("2026-12-02T07:55:00.123456Z"));
  EXPECT_NE(a.evidence.find("\"summary\":\"disk 97% full\""), std::string::npos) << a.evidence;
  EXPECT_NE(a.evidence.find("\"fingerprint\":\"1a30ba71cca2921f\""), std::string::npos);
  EXPECT_NE(a.evidence.find("\"status\":\"firing\""), std::string::npos);
  EXPECT_EQ(a.evidence.find("hunter2"), std::string::npos) << a.evidence;
  const core::PushedAlert& b = (*alerts)[1];
  EXPECT_FALSE(b.firing);
  EXPECT_FALSE(b.starts_at);  // Go's zero time is "not set"
  EXPECT_EQ(b.labels.front().first, "alertname");
}

// The issue's pushed labels: a password, an e-mail and a phone number were stored, shown on
// the page and sent in webhook bodies as pushed.
TEST(AlertmanagerPayloadTest, LabelsAreRedactedBeforeAnythingReadsThem) {
  auto alerts = ParseAlertmanagerPayload(R"({"alerts": [{"status": "firing", "labels": {
      "alertname": "LoginFailures", "password": "hunter2-db", "user": "alice@example.com",
      "phone": "+1 415 555 0134", "token_hint": "Bearer abcdef0123456789"}}]})",
                                         {});
  ASSERT_TRUE(alerts.ok()) << alerts.error().message;
  const core::Labels& labels = (*alerts)[0].labels;
  ASSERT_EQ(labels.size(), 5U);
  for (const auto& [name, value] : labels) {
    for (const char* leak : {"hunter2", "alice", "555", "abcdef0123456789"}) {
      EXPECT_EQ(value.find(leak), std::string::npos) << name << "=" << value;
    }
  }
  EXPECT_EQ(*core::FindLabel(labels, "alertname"), "LoginFailures");
  EXPECT_EQ(*core::FindLabel(labels, "password"), "[secret]");
  EXPECT_EQ(*core::FindLabel(labels, "user"), "pii-ff8d9819fc0e");
  EXPECT_EQ(core::FindLabel(labels, "phone")->rfind("pii-", 0), 0U);
  EXPECT_EQ(*core::FindLabel(labels, "token_hint"), "[secret]");
}

TEST(AlertmanagerPayloadTest, ReadsGrafanaAndIgnoresItsOwnFields) {
  auto alerts = ParseAlertmanagerPayload(kGrafana, {});
  ASSERT_TRUE(alerts.ok()) << alerts.error().message;
  ASSERT_EQ(alerts->size(), 1u);
  EXPECT_EQ(core::FindLabel((*alerts)[0].labels, "team"), "blue");
  EXPECT_EQ((*alerts)[0].evidence.find("valueString"), std::string::npos);
}

TEST(AlertmanagerPayloadTest, ErrorsNameTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"([])", "body: must be a JSON object"},
      {R"({})", "alerts: missing"},
      {R"({"alerts":null})", "alerts: must be an array"},
      {R"({"alerts":[1]})", "alerts[0]: must be an object"},
      {R"({"alerts":[{"labels":{}}]})", "alerts[0].status: missing"},
      {R"({"alerts":[{"status":1,"labels":{}}]})", "alerts[0].status: must be a string"},
      {R"({"alerts":[{"status":"firing","labels":{}},{"status":"firing","labels":[]}]})",
       "alerts[1].labels: must be an object of strings"},
      {R"({"alerts":[{"status":"firing","labels":{"a":"1","a":"2"}}]})",
       "alerts[0].labels.a: appears twice"},
      {R"({"alerts":[{"status":"firing","labels":{},"annotations":{"x":null}}]})",
       "alerts[0].annotations.x: must be a string"},
      {R"({"alerts":[{"status":"firing","labels":{},"startsAt":"2026-13-01T00:00:00Z"}]})",
       "alerts[0].startsAt: "},
      {R"({"alerts":[{"status":"firing","labels":{},"endsAt":5}]})",
       "alerts[0].endsAt: must be a string"},
      {R"({"alerts":[{"status":"firing","labels":{},"generatorURL":[]}]})",
       "alerts[0].generatorURL: must be a string"},
  };
  for (const auto& [body, message] : cases) {
    auto alerts = ParseAlertmanagerPayload(body, {});
    ASSERT_FALSE(alerts.ok()) << body;
    EXPECT_EQ(alerts.error().code, core::ErrorCode::kInvalidArgument);
    EXPECT_TRUE(alerts.error().message.starts_with(message))
        << alerts.error().message << " for " << body;
  }
}

TEST(AlertmanagerPayloadTest, LimitsBoundAlertsAndEvidence) {
  AlertPayloadOptions options;
  options.max_alerts = 1;
  auto many = ParseAlertmanagerPayload(kAlertmanager, options);
  ASSERT_FALSE(many.ok());
  EXPECT_TRUE(many.error().message.starts_with("alerts: holds 2 alerts, more than 1"));
  options = {};
  options.limits.max_evidence_bytes = 64;
  auto big = ParseAlertmanagerPayload(kAlertmanager, options);
  ASSERT_FALSE(big.ok());
  EXPECT_TRUE(big.error().message.starts_with("alerts[0].annotations: the alert's evidence is"))
      << big.error().message;
}

// Whatever arrives, the parser answers a value or an error: truncations and byte flips of a
// real payload, deep nesting and noise.
TEST(AlertmanagerPayloadTest, MalformedInputNeverCrashes) {
  const std::string good = kAlertmanager;
  for (size_t n = 0; n < good.size(); n += 7) {
    (void)ParseAlertmanagerPayload(good.substr(0, n), {});
  }
  std::mt19937 random(20);
  for (int i = 0; i < 2000; ++i) {
    std::string mutated = good;
    for (int k = 0; k < 3; ++k) {
      mutated[random() % mutated.size()] = static_cast<char>(random() % 256);
    }
    (void)ParseAlertmanagerPayload(mutated, {});
  }
  (void)ParseAlertmanagerPayload(std::string(100000, '['), {});
  (void)ParseAlertmanagerPayload(std::string("{\"alerts\":") + std::string(5000, '['), {});
  (void)ParseAlertmanagerPayload(std::string("\0\xff\xfe", 3), {});
  SUCCEED();
}

}  // namespace
}  // namespace quell::inputs
