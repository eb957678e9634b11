// Datadog's "Get all monitors" answers, in the shape its API reference documents, and the drift
// and errors that must fail the poll loudly.
#include "quell/adapters/datadog/monitor_page.h"

#include <gtest/gtest.h>

#include <string>

namespace quell::datadog {
namespace {

constexpr const char* kApp = "https://app.datadoghq.eu";

constexpr const char* kTwoMonitors = R"([
  {"id": 4711, "name": "Support agent errors", "message": "{{#is_alert}}@webhook-quell{{/is_alert}}",
   "overall_state": "Alert", "tags": ["team:support"], "type": "query alert",
   "query": "avg(last_5m):avg:agent.errors{*} by {host,env} > 5",
   "state": {"groups": {
     "env:prod,host:web-1": {"name": "env:prod,host:web-1", "status": "Alert",
       "last_triggered_ts": 1764662400, "last_notified_ts": 1764662400, "last_resolved_ts": 0,
       "last_nodata_ts": 0},
     "env:prod,host:web-2": {"name": "env:prod,host:web-2", "status": "No Data"}}}},
  {"id": 4712, "name": "Checkout up", "overall_state": "OK", "tags": [], "state": {"groups": {}}}
])";

TEST(MonitorPageTest, ReadsEveryGroupOfEveryMonitor) {
  auto page = ParseMonitorPage(200, kTwoMonitors, kApp);
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_EQ(page->monitors, 2U);
  ASSERT_EQ(page->groups.size(), 3U);
  const core::MonitorGroup& alert = page->groups[0];
  EXPECT_EQ(alert.monitor_id, "4711");
  EXPECT_EQ(alert.monitor_name, "Support agent errors");
  EXPECT_EQ(alert.group, "env:prod,host:web-1");
  EXPECT_EQ(alert.status, "Alert");
  EXPECT_EQ(alert.health, core::Health::kUnhealthy);
  EXPECT_EQ(alert.level, "error");
  EXPECT_EQ(alert.tags, (core::Labels{{"env", "prod"}, {"host", "web-1"}}));
  EXPECT_EQ(alert.url, "https://app.datadoghq.eu/monitors/4711");
  ASSERT_TRUE(alert.triggered_at.has_value());
  EXPECT_EQ(core::FormatRfc3339(*alert.triggered_at), "2025-12-02T08:00:00Z");
  EXPECT_EQ(page->groups[1].health, core::Health::kUnknown);
  // A monitor without groups is one group, "*", in its overall state.
  EXPECT_EQ(page->groups[2].group, "*");
  EXPECT_EQ(page->groups[2].health, core::Health::kHealthy);
}

TEST(MonitorPageTest, ANameThatIsNotUtf8IsReadWithReplacementCharacters) {
  std::string body = kTwoMonitors;
  body.replace(body.find("Checkout up"), 11, "Caf\xE9 \\udc00up");
  auto page = ParseMonitorPage(200, body, kApp);
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_EQ(page->groups[2].monitor_name, "Caf\xEF\xBF\xBD \xEF\xBF\xBDup");
}

TEST(MonitorPageTest, MapsDatadogsStatesToHealth) {
  EXPECT_EQ(HealthOfStatus("Alert"), core::Health::kUnhealthy);
  EXPECT_EQ(HealthOfStatus("Warn"), core::Health::kUnhealthy);
  EXPECT_EQ(HealthOfStatus("OK"), core::Health::kHealthy);
  for (const char* unknown : {"No Data", "Unknown", "Skipped", "Ignored"}) {
    EXPECT_EQ(HealthOfStatus(unknown), core::Health::kUnknown) << unknown;
  }
  EXPECT_FALSE(HealthOfStatus("Critical").has_value());
}

TEST(MonitorPageTest, SplitsAGroupNameIntoTags) {
  EXPECT_EQ(TagsOfGroup("host:web-1, env:prod,role"),
            (core::Labels{{"env", "prod"}, {"host", "web-1"}, {"role", ""}}));
  EXPECT_EQ(TagsOfGroup("url:https://x.example/a:b"),
            (core::Labels{{"url", "https://x.example/a:b"}}));
  EXPECT_TRUE(TagsOfGroup("").empty());
}

TEST(MonitorPageTest, DriftFailsNamingTheField) {
  struct Case {
    const char* body;
    const char* field;
  };
  for (const Case& c : {
           Case{R"({"monitors": []})", "body: expected an array"},
           Case{R"([{"name": "x", "overall_state": "OK", "state": {"groups": {}}}])",
                "monitors[0].id"},
           Case{R"([{"id": 1, "name": "x", "overall_state": "OK"}])", "monitors[0].state"},
           Case{R"([{"id": 1, "name": "x", "overall_state": "OK", "state": {}}])",
                "monitors[0].state.groups"},
           Case{R"([{"id": 1, "name": "x", "overall_state": "OK",
                     "state": {"groups": {"host:a": {"state": "Alert"}}}}])",
                "monitors[0].state.groups[\"host:a\"].status: missing"},
           Case{R"([{"id": 1, "name": "x", "overall_state": "OK",
                     "state": {"groups": {"host:a": {"status": "Critical"}}}}])",
                "\"Critical\" is not a state Datadog documents"},
           Case{R"([{"id": 1, "name": "x", "overall_state": "Paused", "state": {"groups": {}}}])",
                "monitors[0].overall_state: \"Paused\" is not a state"},
           Case{"<html>", "not JSON"},
       }) {
    auto page = ParseMonitorPage(200, c.body, kApp);
    ASSERT_FALSE(page.ok()) << c.body;
    EXPECT_EQ(page.error().code, core::ErrorCode::kCorrupt) << c.body;
    EXPECT_NE(page.error().message.find(c.field), std::string::npos) << page.error().message;
  }
}

TEST(MonitorPageTest, ErrorStatusesKeepDatadogsWordsAndTellRetryableFromNot) {
  auto forbidden = ParseMonitorPage(403, R"({"errors": ["Forbidden"]})", kApp);
  ASSERT_FALSE(forbidden.ok());
  EXPECT_EQ(forbidden.error().code, core::ErrorCode::kRejected);
  EXPECT_NE(forbidden.error().message.find("HTTP 403: Forbidden"), std::string::npos);
  EXPECT_NE(forbidden.error().message.find("datadog.api_key_env"), std::string::npos);
  auto limited = ParseMonitorPage(429, R"({"errors": ["Rate limit reached"]})", kApp);
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.error().code, core::ErrorCode::kUnavailable);
  auto down = ParseMonitorPage(503, "upstream connect error", kApp);
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.error().code, core::ErrorCode::kUnavailable);
  EXPECT_NE(down.error().message.find("upstream connect error"), std::string::npos);
}

}  // namespace
}  // namespace quell::datadog
