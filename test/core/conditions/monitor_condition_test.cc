#include "quell/core/conditions/monitor_condition.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace quell::core {
namespace monitor_condition_test {

const WallTime kAt = WallTime{} + std::chrono::hours(24 * 365 * 56);

MonitorCondition Condition(const std::string& key = "{monitor_id}:{tags.host}") {
  MonitorCondition condition;
  condition.common.name = "dd";
  auto parsed = KeyTemplate::Parse(key);
  EXPECT_TRUE(parsed.ok());
  condition.key = std::move(*parsed);
  return condition;
}

MonitorGroup Group(const std::string& host, Health health, const std::string& status) {
  MonitorGroup group;
  group.monitor_id = "4711";
  group.monitor_name = "Support agent errors";
  group.group = "env:prod,host:" + host;
  group.status = status;
  group.health = health;
  group.tags = {{"env", "prod"}, {"host", host}};
  group.level = health == Health::kUnhealthy ? "error" : "";
  group.url = "https://app.datadoghq.com/monitors/4711";
  return group;
}

Incident Open(const std::string& key) {
  Incident incident;
  incident.key = key;
  incident.condition = "dd";
  incident.status = IncidentStatus::kOpen;
  return incident;
}

TEST(MonitorConditionTest, EachAlertingGroupIsAnUnhealthyKeyWithItsEvidence) {
  MonitorListing listing;
  listing.complete = true;
  listing.groups = {Group("web-1", Health::kUnhealthy, "Alert"),
                    Group("web-2", Health::kUnhealthy, "Warn"),
                    Group("web-3", Health::kHealthy, "OK")};
  const auto observed = ObserveMonitors(Condition(), listing, {}, kAt);
  ASSERT_EQ(observed.size(), 2U);  // a healthy key with nothing open decides nothing
  EXPECT_EQ(observed[0].key, "4711:web-1");
  EXPECT_EQ(observed[0].health, Health::kUnhealthy);
  EXPECT_EQ(observed[1].key, "4711:web-2");
  EXPECT_NE(observed[0].evidence.find("\"title\":\"Support agent errors\""), std::string::npos)
      << observed[0].evidence;
  EXPECT_NE(observed[0].evidence.find("Alert on env:prod,host:web-1"), std::string::npos)
      << observed[0].evidence;
  EXPECT_NE(observed[0].evidence.find("https://app.datadoghq.com/monitors/4711"), std::string::npos)
      << observed[0].evidence;
  EXPECT_EQ(observed[0].labels, (Labels{{"host", "web-1"}, {"monitor_id", "4711"}}));
}

TEST(MonitorConditionTest, NoDataIsUnknownAndOkResolvesAnOpenKey) {
  MonitorListing listing;
  listing.complete = true;
  listing.groups = {Group("web-1", Health::kUnknown, "No Data"),
                    Group("web-2", Health::kHealthy, "OK")};
  const std::vector<Incident> open = {Open("4711:web-1"), Open("4711:web-2")};
  const auto observed = ObserveMonitors(Condition(), listing, open, kAt);
  ASSERT_EQ(observed.size(), 2U);
  EXPECT_EQ(observed[0].health, Health::kUnknown);
  EXPECT_EQ(observed[1].health, Health::kHealthy);
}

TEST(MonitorConditionTest, AGroupGoneFromACompleteListingIsHealthyAndFromAFailedOneUnknown) {
  const std::vector<Incident> open = {Open("4711:web-9")};
  MonitorListing complete;
  complete.complete = true;
  auto observed = ObserveMonitors(Condition(), complete, open, kAt);
  ASSERT_EQ(observed.size(), 1U);
  EXPECT_EQ(observed[0].health, Health::kHealthy);

  MonitorListing failed;
  failed.error = MakeError(ErrorCode::kUnavailable, "datadog: HTTP 500");
  failed.groups = {Group("web-9", Health::kHealthy, "OK"),
                   Group("web-1", Health::kUnhealthy, "Alert")};
  observed = ObserveMonitors(Condition(), failed, open, kAt);
  ASSERT_EQ(observed.size(), 2U);
  EXPECT_EQ(observed[0].key, "4711:web-1");  // a failure it read still counts
  EXPECT_EQ(observed[0].health, Health::kUnhealthy);
  EXPECT_EQ(observed[1].key, "4711:web-9");  // its OK proves nothing in a partial listing
  EXPECT_EQ(observed[1].health, Health::kUnknown);
}

TEST(MonitorConditionTest, GroupsSharingAKeyMergeWithTheWorstHealth) {
  MonitorListing listing;
  listing.complete = true;
  listing.groups = {Group("web-1", Health::kHealthy, "OK"),
                    Group("web-2", Health::kUnknown, "No Data"),
                    Group("web-3", Health::kUnhealthy, "Alert")};
  const std::vector<Incident> open = {Open("4711")};
  auto observed = ObserveMonitors(Condition("{monitor_id}"), listing, open, kAt);
  ASSERT_EQ(observed.size(), 1U);
  EXPECT_EQ(observed[0].health, Health::kUnhealthy);
  listing.groups.pop_back();
  observed = ObserveMonitors(Condition("{monitor_id}"), listing, open, kAt);
  ASSERT_EQ(observed.size(), 1U);
  EXPECT_EQ(observed[0].health, Health::kUnknown);  // no data keeps a healthy twin from resolving
}

TEST(MonitorConditionTest, KeyFieldsNameTheMonitorAndTheGroup) {
  const MonitorGroup group = Group("web-1", Health::kUnhealthy, "Alert");
  EXPECT_EQ(MonitorField(group, "monitor_id"), "4711");
  EXPECT_EQ(MonitorField(group, "name"), "Support agent errors");
  EXPECT_EQ(MonitorField(group, "group"), "env:prod,host:web-1");
  EXPECT_EQ(MonitorField(group, "status"), "Alert");
  EXPECT_EQ(MonitorField(group, "tags.env"), "prod");
  EXPECT_FALSE(MonitorField(group, "tags.zone").has_value());
  EXPECT_FALSE(MonitorField(group, "title").has_value());
}

}  // namespace monitor_condition_test
}  // namespace quell::core
