// `type: push` conditions as the loader reads them: their own keys, the keys every condition
// takes, the checks that enumerate conditions (routes, inhibitions), and a config of push
// conditions only, which needs no source section and no API key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "quell/adapters/config/config_loader.h"

namespace quell::config {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

class PushConditionConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() /
        ("quell-push-config-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& text) {
    const auto path = dir_ / "push.yaml";
    std::ofstream(path) << text;
    return path.string();
  }

  // No INFRAI_API_KEY or any other variable: a push config must not need one.
  static std::optional<std::string> NoEnv(std::string_view) { return std::nullopt; }

  // Expects the config to fail with every one of `parts` in its message.
  void ExpectError(const std::string& text, std::initializer_list<std::string> parts) {
    auto config = LoadConfig(Write(text), NoEnv);
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.error().code, core::ErrorCode::kInvalidArgument);
    for (const std::string& part : parts) {
      EXPECT_NE(config.error().message.find(part), std::string::npos)
          << "missing \"" << part << "\" in: " << config.error().message;
    }
  }

  std::filesystem::path dir_;
};

constexpr const char* kAllPush = R"(store: sqlite:push.db
defaults:
  cooldown: 30m
conditions:
  - name: prom-alerts
    type: push
    key: "{labels.tenant|no-tenant}:{labels.alertname}"
    stale_after: 15m
    expire_after: 4h
    healthy_polls_to_close: 1
    interval: 30s
    severity: warning
    channels: [chat]
  - name: grafana
    type: push
    key: "{annotations.summary}"
    stale_after: 5m
    channels: [chat]
channels:
  - {name: chat, type: webhook, url: "https://hooks.example.com/c", signing: off}
)";

TEST_F(PushConditionConfigTest, AnAllPushConfigLoadsWithoutASourceSectionOrAnApiKey) {
  auto config = LoadConfig(Write(kAllPush), NoEnv);
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_TRUE(config->error_conditions.empty());
  EXPECT_TRUE(config->metric_conditions.empty());
  EXPECT_FALSE(config->infrai.enabled);
  EXPECT_FALSE(config->prometheus.enabled);
  ASSERT_EQ(config->push_conditions.size(), 2u);
  const core::PushCondition& alerts = config->push_conditions[0];
  EXPECT_EQ(alerts.common.name, "prom-alerts");
  EXPECT_EQ(alerts.key.text(), "{labels.tenant|no-tenant}:{labels.alertname}");
  EXPECT_EQ(alerts.stale_after, minutes(15));
  EXPECT_EQ(alerts.expire_after, hours(4));
  EXPECT_EQ(alerts.common.policy.healthy_polls_to_close, 1u);
  EXPECT_EQ(alerts.common.policy.cooldown, minutes(30));  // from the defaults
  EXPECT_EQ(alerts.common.interval, std::chrono::seconds(30));
  EXPECT_EQ(alerts.common.channels, (std::vector<std::string>{"chat"}));
  EXPECT_EQ(config->condition_severity.at("prom-alerts"), "warning");
  const core::PushCondition& grafana = config->push_conditions[1];
  EXPECT_EQ(grafana.stale_after, minutes(5));
  EXPECT_FALSE(grafana.expire_after.has_value());
  EXPECT_FALSE(grafana.common.shadow);

  EXPECT_TRUE(CheckConfig(Write(kAllPush), NoEnv).empty());
}

TEST_F(PushConditionConfigTest, AKeyOverAnythingButLabelsAndAnnotationsIsRefusedAtTheKey) {
  const std::string head = "conditions:\n  - name: p\n    type: push\n    stale_after: 5m\n";
  ExpectError(head + "    key: \"{labels.tenant}:{tags.stage}\"\n",
              {"push.yaml:5:10", "{tags.stage}", "labels.<name> or annotations.<name>"});
  ExpectError(head + "    key: \"{alertname}\"\n", {"push.yaml:5:10", "{alertname}"});
  ExpectError(head + "    key: \"{labels.}\"\n", {"push.yaml:5:10", "{labels.}"});
  ExpectError(head + "    key: \"{labels.tenant\"\n", {"push.yaml:5:10", "key"});
  ExpectError(head, {"push.yaml:2:", "key", "a key template is required"});
}

TEST_F(PushConditionConfigTest, StaleAfterIsRequiredAndExpireAfterMustBeLonger) {
  const std::string head = "conditions:\n  - name: p\n    type: push\n    key: '{labels.a}'\n";
  ExpectError(head, {"push.yaml:2:", "needs stale_after"});
  ExpectError(head + "    stale_after: 0s\n", {"push.yaml:5:", "stale_after", "must be positive"});
  ExpectError(head + "    stale_after: soon\n", {"push.yaml:5:", "stale_after"});
  ExpectError(head + "    stale_after: 15m\n    expire_after: 10m\n",
              {"push.yaml:6:", "expire_after", "must be longer than stale_after (15m"});
  ExpectError(head + "    stale_after: 15m\n    expire_after: 15m\n",
              {"push.yaml:6:", "expire_after"});
  ExpectError(head + "    stale_after: 15m\n    no_series_warn_after: 2\n",
              {"push.yaml:6:", "only metric conditions"});
  ExpectError(head + "    stale_after: 15m\n    metric: x\n", {"push.yaml:6:", "metric"});
}

TEST_F(PushConditionConfigTest, TheTypeErrorListsPush) {
  ExpectError("conditions:\n  - {name: p, type: pushed}\n",
              {"push.yaml:2:",
               "expected error_groups, infrai_metric, prometheus, push, "
               "sentry_issues or datadog_monitors"});
}

TEST_F(PushConditionConfigTest, RoutesAndInhibitionsOfPushConditionsAreChecked) {
  const std::string head =
      "conditions:\n  - {name: p, type: push, key: '{labels.a}', stale_after: 5m";
  const std::string channels =
      "channels:\n  - {name: c, type: webhook, url: 'https://h.example.com', signing: off}\n";
  ExpectError(head + ", channels: [pager]}\n" + channels,
              {"\"p\"", "\"pager\"", "not in `channels`"});
  ExpectError(head + ", channels: [c], route: [{match: {a: b}, channels: [sms]}]}\n" + channels,
              {"route[0]", "\"sms\"", "not in `channels`"});
  ExpectError(head + ", inhibited_by: [{condition: nope}]}\n",
              {"push.yaml:2:", "\"nope\"", "not a configured condition"});

  // A push condition may inhibit another and be inhibited by one.
  auto config = LoadConfig(
      Write(head + ", channels: [c], inhibited_by: [{condition: q}]}\n" +
            "  - {name: q, type: push, key: '{labels.b}', stale_after: 5m, channels: [c]}\n" +
            channels),
      NoEnv);
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_EQ(config->push_conditions[0].common.inhibited_by.size(), 1u);
  EXPECT_EQ(config->push_conditions[0].common.inhibited_by[0].condition, "q");
}

TEST_F(PushConditionConfigTest, TopLevelShadowAndTheKeyBoundReachPushConditions) {
  auto config = LoadConfig(Write("shadow: true\nlimits:\n  key_bytes: 40\nconditions:\n"
                                 "  - {name: p, type: push, key: '{labels.a}', stale_after: 5m}\n"),
                           NoEnv);
  ASSERT_TRUE(config.ok()) << config.error().message;
  const core::PushCondition& push = config->push_conditions[0];
  EXPECT_TRUE(push.common.shadow);
  const std::string long_value(200, 'x');
  const std::string key = push.key.Render(
      [&](std::string_view) { return std::optional<std::string_view>(long_value); });
  EXPECT_LE(key.size(), 40u);
}

TEST_F(PushConditionConfigTest, PushBesideAPolledConditionStillNeedsThatSourcesKeyAtStart) {
  // The loader reads it; the missing key is start-up's concern (wiring::CheckStartup), so the
  // push condition's presence must not hide the Infrai condition.
  auto config = LoadConfig(Write("conditions:\n  - {name: e, type: error_groups}\n"
                                 "  - {name: p, type: push, key: '{labels.a}', stale_after: 5m}\n"),
                           NoEnv);
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->error_conditions.size(), 1u);
  EXPECT_EQ(config->push_conditions.size(), 1u);
  EXPECT_TRUE(config->infrai.api_key.empty());
}

}  // namespace
}  // namespace quell::config
