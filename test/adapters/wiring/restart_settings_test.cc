#include "quell/adapters/wiring/restart_settings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace quell::wiring {
namespace {

using Names = std::vector<std::string>;

TEST(RestartSettingsTest, AnIdenticalConfigNeedsNoRestart) {
  const config::Config config;
  EXPECT_EQ(SettingsNeedingRestart(config, config, false), Names{});
}

TEST(RestartSettingsTest, OnlyTheListenerTheLogTheHeartbeatAndTheStoreNeedOne) {
  config::Config started;
  config::Config next = started;
  // What a reload applies: none of these is named.
  next.http.public_url = "https://quell.example.test";
  next.http.ack_link_secret = "a-new-ack-link-secret-0123";
  next.http.health_grace = std::chrono::seconds(5);
  next.polling.lease = std::chrono::seconds(30);
  next.shadow = true;
  next.condition_severity["checkout"] = "critical";
  EXPECT_EQ(SettingsNeedingRestart(started, next, false), Names{});

  next.store_url = "sqlite:/var/lib/quell/other.db";
  next.http.listen = "0.0.0.0:8787";
  next.http.token = "rotated-token";
  next.http.token_name = "ops";
  next.http.open_reads = true;
  next.log.format = config::LogFormat::kText;
  next.log.level = config::LogLevelSetting::kDebug;
  next.heartbeat.url = "https://hc-ping.example/new";
  next.heartbeat.timeout = std::chrono::seconds(1);
  next.heartbeat.max_attempts = 1;
  EXPECT_EQ(SettingsNeedingRestart(started, next, false), RestartOnlySettings());
  // Under --store the file's store is not the one used: changing it changes nothing.
  const Names overridden = SettingsNeedingRestart(started, next, true);
  EXPECT_EQ(std::count(overridden.begin(), overridden.end(), "store"), 0);
  EXPECT_EQ(overridden.size(), RestartOnlySettings().size() - 1);
}

TEST(RestartSettingsTest, EachIsNamedAlone) {
  const config::Config started;
  config::Config next = started;
  next.log.level = config::LogLevelSetting::kWarn;
  EXPECT_EQ(SettingsNeedingRestart(started, next, false), Names{"log.level"});
  next = started;
  next.http.listen = "127.0.0.1:1";
  EXPECT_EQ(SettingsNeedingRestart(started, next, false), Names{"http.listen"});
}

}  // namespace
}  // namespace quell::wiring
