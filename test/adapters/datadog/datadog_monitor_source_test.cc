// DatadogMonitorSource against the Datadog stand-in on loopback (test/support/datadog_server):
// the pages it walks, the parameters and headers it sends.
#include "quell/adapters/datadog/datadog_monitor_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "datadog_server.h"
#include "httplib_test_client.h"

namespace quell::datadog {
namespace {

constexpr const char* kApiKey = "api-key-0f1e2d3c4b5a";
constexpr const char* kAppKey = "app-key-9a8b7c6d5e4f";

class DatadogMonitorSourceTest : public ::testing::Test {
 protected:
  DatadogOptions Options() const {
    DatadogOptions options;
    options.api_url = server_.BaseUrl();
    options.app_url = "https://app.datadoghq.com";
    options.api_key = kApiKey;
    options.app_key = kAppKey;
    return options;
  }

  testing::DatadogServer server_{kApiKey, kAppKey};
  testing::HttplibTestClient http_;
};

TEST_F(DatadogMonitorSourceTest, WalksEveryPageOfTheSelectedMonitors) {
  for (int64_t id = 1; id <= 5; ++id) {
    server_.SetMonitor(id, "monitor " + std::to_string(id), {"team:support"});
    server_.SetGroup(id, "host:web-" + std::to_string(id), id == 3 ? "Alert" : "OK");
  }
  server_.SetMonitor(9, "other team", {"team:billing"});
  server_.SetGroup(9, "host:bill", "Alert");
  DatadogOptions options = Options();
  options.page_size = 2;
  DatadogMonitorSource source(http_, options);
  const core::MonitorListing listing = source.List({.monitor_tags = {"team:support"}});
  ASSERT_TRUE(listing.complete) << listing.error.message;
  EXPECT_EQ(listing.pages, 3U);
  ASSERT_EQ(listing.groups.size(), 5U);
  EXPECT_EQ(std::count_if(
                listing.groups.begin(), listing.groups.end(),
                [](const core::MonitorGroup& g) { return g.health == core::Health::kUnhealthy; }),
            1);
  const auto targets = server_.Targets();
  ASSERT_EQ(targets.size(), 3U);
  EXPECT_NE(targets[0].find("group_states=all"), std::string::npos) << targets[0];
  EXPECT_NE(targets[0].find("monitor_tags=team:support"), std::string::npos) << targets[0];
  EXPECT_NE(targets[2].find("page=2"), std::string::npos) << targets[2];
}

TEST_F(DatadogMonitorSourceTest, WrongKeysAreRefusedWithoutShowingThem) {
  DatadogOptions options = Options();
  options.app_key = "app-key-wrong-000000";
  DatadogMonitorSource source(http_, options);
  const core::MonitorListing listing = source.List({});
  EXPECT_FALSE(listing.complete);
  EXPECT_EQ(listing.error.code, core::ErrorCode::kRejected);
  EXPECT_NE(listing.error.message.find("HTTP 403"), std::string::npos) << listing.error.message;
  EXPECT_EQ(listing.error.message.find("app-key"), std::string::npos) << listing.error.message;
  EXPECT_EQ(listing.error.message.find(kApiKey), std::string::npos) << listing.error.message;
}

TEST_F(DatadogMonitorSourceTest, MorePagesThanMaxPagesIsAnIncompleteListing) {
  for (int64_t id = 1; id <= 3; ++id) server_.SetMonitor(id, "m", {});
  DatadogOptions options = Options();
  options.page_size = 1;
  options.max_pages = 2;
  DatadogMonitorSource source(http_, options);
  const core::MonitorListing listing = source.List({});
  EXPECT_FALSE(listing.complete);
  EXPECT_NE(listing.error.message.find("datadog.max_pages"), std::string::npos);
}

}  // namespace
}  // namespace quell::datadog
