#include "quell/adapters/wiring/surface_settings.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "../../app/fake_clock.h"

namespace quell::wiring {
namespace {

config::Config WithChannel(const std::string& channel, const std::string& slack_secret) {
  config::Config config;
  config.path = "quell.yaml";
  core::ErrorGroupCondition condition;
  condition.common.name = "agent-errors";
  condition.common.channels = {channel};
  config.error_conditions.push_back(condition);
  config.infrai.api_key = "ifr_pk_proj_surface_0123456789";
  config::ChannelConfig slack;
  slack.name = "chat";
  channels::SlackSettings settings;
  settings.signing_secret = slack_secret;
  slack.settings = settings;
  config.channels.push_back(slack);
  config.condition_severity["agent-errors"] = channel == "hook" ? "warning" : "critical";
  return config;
}

class SurfaceSettingsTest : public ::testing::Test {
 protected:
  testing::FakeClock clock_{core::WallTime{}};
  app::Latest<SurfaceSettings> latest_;
};

TEST_F(SurfaceSettingsTest, EveryViewFollowsTheLatestConfig) {
  const app::RouteLookup routes = LatestRoutes(latest_);
  const app::UpstreamLookup upstream = LatestUpstream(latest_);
  const auto severities = LatestSeverities(latest_);
  const http_server::CallbackSettingsSource callbacks = LatestCallbacks(latest_);
  // Before any config: nothing routed, nothing to resolve upstream, no secret.
  EXPECT_FALSE(routes("agent-errors").has_value());
  EXPECT_EQ(upstream("agent-errors"), nullptr);
  EXPECT_TRUE(callbacks()->slack_signing_secrets.empty());

  latest_.Set(SurfaceSettingsOf(WithChannel("hook", "slack-secret-one"), clock_));
  ASSERT_TRUE(routes("agent-errors").has_value());
  EXPECT_EQ(routes("agent-errors")->channels, std::vector<std::string>{"hook"});
  EXPECT_NE(upstream("agent-errors"), nullptr);
  EXPECT_EQ(upstream("another"), nullptr);
  EXPECT_EQ(severities()->at("agent-errors"), "warning");
  EXPECT_EQ(callbacks()->slack_signing_secrets, std::vector<std::string>{"slack-secret-one"});
  EXPECT_NE(callbacks()->slack_responses, nullptr);

  // A request in flight keeps the settings it started with, answers included.
  const std::shared_ptr<const http_server::CallbackSettings> in_flight = callbacks();
  const std::shared_ptr<core::GroupResolver> resolving = upstream("agent-errors");
  config::Config next = WithChannel("hook2", "slack-secret-two");
  next.infrai.api_key.clear();  // no key: an upstream resolve is refused
  latest_.Set(SurfaceSettingsOf(next, clock_));
  EXPECT_EQ(routes("agent-errors")->channels, std::vector<std::string>{"hook2"});
  EXPECT_EQ(upstream("agent-errors"), nullptr);
  EXPECT_EQ(severities()->at("agent-errors"), "critical");
  EXPECT_EQ(callbacks()->slack_signing_secrets, std::vector<std::string>{"slack-secret-two"});
  EXPECT_EQ(in_flight->slack_signing_secrets, std::vector<std::string>{"slack-secret-one"});
  EXPECT_NE(in_flight->slack_responses, nullptr);
  EXPECT_NE(resolving, nullptr);
}

TEST_F(SurfaceSettingsTest, TheHealthLimitFollowsTheIntervals) {
  config::Config config = WithChannel("hook", "");
  config.error_conditions[0].common.interval = std::chrono::seconds(10);
  config.http.health_grace = std::chrono::seconds(3);
  const SurfaceSettings fast = SurfaceSettingsOf(config, clock_);
  EXPECT_EQ(fast.liveness.interval, std::chrono::seconds(10));
  EXPECT_EQ(fast.liveness.grace, std::chrono::seconds(3));
  EXPECT_EQ(fast.callbacks.slack_responses, nullptr) << "no Slack secret, no client";
  config.error_conditions[0].common.interval = std::chrono::minutes(5);
  EXPECT_EQ(SurfaceSettingsOf(config, clock_).liveness.interval, std::chrono::minutes(5));
}

}  // namespace
}  // namespace quell::wiring
