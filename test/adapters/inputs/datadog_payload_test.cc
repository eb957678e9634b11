// Datadog's webhook integration with docs/inputs.md's payload template, its variables filled in
// as Datadog documents them; and what the template's users can get wrong.
#include "quell/adapters/inputs/datadog_payload.h"

#include <gtest/gtest.h>

#include <string>

namespace quell::inputs {
namespace {

constexpr const char* kTriggered = R"({
  "id": "7654321", "alert_id": "4711", "alert_cycle_key": "abc",
  "alert_transition": "Triggered", "alert_type": "error",
  "alert_scope": "host:web-1,env:prod", "alert_priority": "P2",
  "alert_title": "[Triggered on {host:web-1,env:prod}] Support agent errors",
  "alert_status": "agent.errors over host:web-1 was > 5 on average",
  "event_title": "[Triggered] Support agent errors",
  "event_msg": "Answer errors are up on web-1. token=hunter2hunter2",
  "link": "https://app.datadoghq.com/event/event?id=7654321",
  "date": "1796634000000", "org": {"id": "1", "name": "Acme"}
})";

TEST(DatadogPayloadTest, ATriggeredAlertFiresWithTheGroupsTagsAsLabels) {
  auto alerts = ParseDatadogPayload(kTriggered, {});
  ASSERT_TRUE(alerts.ok()) << alerts.error().message;
  ASSERT_EQ(alerts->size(), 1U);
  const core::PushedAlert& alert = (*alerts)[0];
  EXPECT_TRUE(alert.firing);
  EXPECT_EQ(alert.labels, (core::Labels{{"env", "prod"},
                                        {"host", "web-1"},
                                        {"monitor_id", "4711"},
                                        {"priority", "P2"},
                                        {"scope", "host:web-1,env:prod"},
                                        {"severity", "error"}}));
  EXPECT_EQ(core::FindLabel(alert.annotations, "summary"),
            "[Triggered on {host:web-1,env:prod}] Support agent errors");
  ASSERT_TRUE(alert.starts_at.has_value());
  EXPECT_EQ(core::FormatRfc3339(*alert.starts_at), "2026-12-07T09:00:00Z");
  // A pushed alert's evidence, redacted: messages read its summary.
  EXPECT_NE(alert.evidence.find("\"status\":\"firing\""), std::string::npos) << alert.evidence;
  EXPECT_NE(alert.evidence.find("\"startsAt\":\"2026-12-07T09:00:00Z\""), std::string::npos);
  EXPECT_EQ(alert.evidence.find("hunter2hunter2"), std::string::npos) << alert.evidence;
}

TEST(DatadogPayloadTest, RecoveredResolvesAndNoDataSaysNothing) {
  std::string body = kTriggered;
  body.replace(body.find("\"Triggered\""), 11, "\"Recovered\"");
  auto alerts = ParseDatadogPayload(body, {});
  ASSERT_TRUE(alerts.ok()) << alerts.error().message;
  ASSERT_EQ(alerts->size(), 1U);
  EXPECT_FALSE((*alerts)[0].firing);
  EXPECT_FALSE((*alerts)[0].starts_at.has_value());

  for (const char* transition : {"No Data", "Re-No Data", "Null"}) {
    std::string quiet = kTriggered;
    quiet.replace(quiet.find("\"Triggered\""), 11, std::string("\"") + transition + "\"");
    auto none = ParseDatadogPayload(quiet, {});
    ASSERT_TRUE(none.ok()) << none.error().message;
    EXPECT_TRUE(none->empty()) << transition;
  }
  for (const char* firing : {"Re-Triggered", "Warn", "Re-Warn", "Renotify"}) {
    std::string again = kTriggered;
    again.replace(again.find("\"Triggered\""), 11, std::string("\"") + firing + "\"");
    auto fires = ParseDatadogPayload(again, {});
    ASSERT_TRUE(fires.ok()) << fires.error().message;
    ASSERT_EQ(fires->size(), 1U);
    EXPECT_TRUE((*fires)[0].firing) << firing;
  }
}

TEST(DatadogPayloadTest, AMonitorWithoutGroupsHasAnEmptyScope) {
  auto alerts = ParseDatadogPayload(
      R"({"alert_id": 4711, "alert_transition": "Triggered", "alert_scope": "",
          "alert_title": "Checkout is down", "date": 1796634000000})",
      {});
  ASSERT_TRUE(alerts.ok()) << alerts.error().message;
  ASSERT_EQ(alerts->size(), 1U);
  EXPECT_EQ((*alerts)[0].labels, (core::Labels{{"monitor_id", "4711"}, {"scope", ""}}));
}

TEST(DatadogPayloadTest, RefusesWhatTheTemplateCannotHaveSentNamingTheField) {
  struct Case {
    const char* body;
    const char* message;
  };
  for (const Case& c : {
           Case{R"({"alert_transition": "Triggered"})", "alert_id: missing"},
           Case{R"({"alert_id": "1"})", "alert_transition: missing"},
           Case{R"({"alert_id": "1", "alert_transition": "Exploded"})",
                "\"Exploded\" is not a transition Datadog documents"},
           Case{R"({"alert_id": "1", "alert_transition": "Triggered", "date": "yesterday"})",
                "date: expected epoch milliseconds"},
           // Found by the fuzzer: milliseconds past year 9999 overflowed the microseconds.
           Case{R"({"alert_id": "1", "alert_transition": "Triggered",
                    "date": "1796634796634000000"})",
                "date: expected epoch milliseconds"},
           Case{R"({"alert_id": ["1"], "alert_transition": "Triggered"})",
                "alert_id: must be a string"},
           Case{"alert_id=1&alert_transition=Triggered", "is \"Encode as form\" unchecked?"},
           Case{"[]", "body: must be a JSON object"},
       }) {
    auto alerts = ParseDatadogPayload(c.body, {});
    ASSERT_FALSE(alerts.ok()) << c.body;
    EXPECT_EQ(alerts.error().code, core::ErrorCode::kInvalidArgument);
    EXPECT_NE(alerts.error().message.find(c.message), std::string::npos) << alerts.error().message;
  }
}

}  // namespace
}  // namespace quell::inputs
