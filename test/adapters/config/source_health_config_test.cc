// source_failures_to_open and meta_channels: read by the loader (defaults, a source section's
// override, 0 off, an unknown meta channel refused), then turned into each source's own
// incident's target by wiring::SourceHealthTargets.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/wiring/source_health_targets.h"

namespace quell::config {
namespace {

using std::chrono::minutes;

EnvLookup Env() {
  return [](std::string_view name) -> std::optional<std::string> {
    if (name == "INFRAI_API_KEY") return std::string("ifr_pk_proj_health_0123456789");
    return std::nullopt;
  };
}

constexpr const char* kChannels = R"(channels:
  - {name: chat, type: webhook, url: "http://127.0.0.1:9/chat", signing: off}
  - {name: pager, type: webhook, url: "http://127.0.0.1:9/pager", signing: off}
  - {name: ops, type: webhook, url: "http://127.0.0.1:9/ops", signing: off}
)";

core::Result<Config> Load(const std::string& text) {
  return LoadConfigText(text, "quell.yaml", Env());
}

TEST(SourceHealthConfigTest, ThreeFailedPollsByDefaultToTheChannelsOfTheSourcesConditions) {
  auto config = Load(std::string(kChannels) + R"(defaults: {cooldown: 20m}
conditions:
  - {name: errs, type: error_groups, channels: [chat]}
  - name: checkout
    type: error_groups
    route: [{match: {tenant: acme}, channels: [ops]}, {channels: [chat]}]
    escalation: [{after: 0s, channels: [chat]}, {after: 5m, channels: [pager]}]
  - {name: latency, type: infrai_metric, metric: p99, key: "{tenant}", above: 2, channels: [pager]}
  - {name: alerts, type: push, key: "{labels.alertname}", stale_after: 15m, channels: [ops]}
http: {token_env: INFRAI_API_KEY}
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->source_failures_to_open, 3U);
  EXPECT_TRUE(config->meta_channels.empty());
  const auto targets = wiring::SourceHealthTargets(*config);
  ASSERT_EQ(targets.size(), 3U);
  const app::SourceHealthTarget& errors = targets.at("infrai error groups");
  EXPECT_EQ(errors.failures_to_open, 3U);
  EXPECT_EQ(errors.cooldown, minutes(20));
  EXPECT_FALSE(errors.shadow);
  // Each channel once, in config order; a tier that waits for an ack (pager after 5m) is not
  // paged for a source at once.
  EXPECT_EQ(errors.channels, (std::vector<std::string>{"chat", "ops"}));
  EXPECT_EQ(targets.at("infrai metrics").channels, std::vector<std::string>{"pager"});
  EXPECT_EQ(targets.at("push/alerts").channels, std::vector<std::string>{"ops"});
  EXPECT_EQ(targets.at("push/alerts").failures_to_open, 3U);
}

TEST(SourceHealthConfigTest, ASourceSectionOverridesTheTopLevelAndZeroTurnsItOff) {
  auto config = Load(std::string(kChannels) + R"(source_failures_to_open: 5
infrai: {source_failures_to_open: 0}
prometheus: {url: "http://127.0.0.1:9", source_failures_to_open: 2}
defaults: {channels: [chat]}
conditions:
  - {name: errs, type: error_groups}
  - {name: latency, type: infrai_metric, metric: p99, key: "{tenant}", above: 2}
  - {name: queue, type: prometheus, query: "up", key: "{job}", below: 1}
  - {name: alerts, type: push, key: "{labels.alertname}", stale_after: 15m}
http: {token_env: INFRAI_API_KEY}
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->source_failures_to_open, 5U);
  EXPECT_EQ(config->infrai.source_failures_to_open, std::optional<uint32_t>(0));
  EXPECT_EQ(config->prometheus.source_failures_to_open, std::optional<uint32_t>(2));
  const auto targets = wiring::SourceHealthTargets(*config);
  EXPECT_EQ(targets.at("infrai error groups").failures_to_open, 0U);
  EXPECT_EQ(targets.at("infrai metrics").failures_to_open, 0U);
  EXPECT_EQ(targets.at("prometheus").failures_to_open, 2U);
  EXPECT_EQ(targets.at("push/alerts").failures_to_open, 5U);
}

TEST(SourceHealthConfigTest, MetaChannelsReplaceTheConditionsChannels) {
  auto config = Load(std::string(kChannels) + R"(meta_channels: [ops, pager]
conditions:
  - {name: errs, type: error_groups, channels: [chat], shadow: true}
)");
  ASSERT_TRUE(config.ok()) << config.error().message;
  const auto targets = wiring::SourceHealthTargets(*config);
  EXPECT_EQ(targets.at("infrai error groups").channels, (std::vector<std::string>{"ops", "pager"}));
  EXPECT_TRUE(targets.at("infrai error groups").shadow) << "its only condition is in shadow";
}

TEST(SourceHealthConfigTest, AnUnknownMetaChannelIsAnErrorNamingTheSetting) {
  const std::string text = std::string(kChannels) + R"(meta_channels: [ops, oncall]
conditions:
  - {name: errs, type: error_groups, channels: [chat]}
)";
  auto config = Load(text);
  ASSERT_FALSE(config.ok());
  EXPECT_NE(
      config.error().message.find(
          R"(quell.yaml:5:16: meta_channels: names channel "oncall", which is not in `channels`)"),
      std::string::npos)
      << config.error().message;
  // `config check` lists the same message.
  const CheckedConfig checked = ReadConfigTextForCheck(text, "quell.yaml", Env());
  ASSERT_EQ(checked.errors.size(), 1U);
  EXPECT_EQ(checked.errors[0], config.error().message);
  // Without any `channels:` a meta channel names nothing either.
  EXPECT_FALSE(Load("meta_channels: [ops]\nconditions: [{name: errs, type: error_groups}]\n").ok());
  EXPECT_FALSE(Load("source_failures_to_open: -1\nconditions: [{name: errs, type: "
                    "error_groups}]\n")
                   .ok());
}

}  // namespace
}  // namespace quell::config
