// `escalation:` in defaults, a condition and a route: read, inherited, and refused where wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "quell/adapters/config/config_loader.h"

namespace quell::config {
namespace {

using std::chrono::minutes;

constexpr const char* kChannels =
    "channels:\n"
    "  - {name: chat, type: webhook, url: https://hooks.example.com/c, signing: off}\n"
    "  - {name: pager, type: webhook, url: https://hooks.example.com/p, signing: off}\n"
    "  - {name: digest, type: webhook, url: https://hooks.example.com/d, signing: off,"
    " group_by: [tenant]}\n";

constexpr const char* kTiers =
    "  escalation:\n"
    "    - {after: 0s, channels: [chat]}\n"
    "    - {after: 5m, channels: [pager]}\n";

class EscalationConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() /
        ("quell-escalation-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  core::Result<Config> Load(const std::string& text) {
    const auto path = dir_ / "q.yaml";
    std::ofstream(path) << text;
    return LoadConfig(path.string(), [](std::string_view) { return std::nullopt; });
  }
  void ExpectError(const std::string& text, std::initializer_list<std::string> parts) {
    auto config = Load(text);
    ASSERT_FALSE(config.ok()) << text;
    for (const std::string& part : parts) {
      EXPECT_NE(config.error().message.find(part), std::string::npos)
          << "missing \"" << part << "\" in: " << config.error().message;
    }
  }
  std::filesystem::path dir_;
};

TEST_F(EscalationConfigTest, DefaultsTiersAreInheritedAndAConditionsChannelsReplaceThem) {
  auto config = Load(std::string("defaults:\n") + kTiers +
                     "conditions:\n"
                     "  - {name: errs, type: error_groups}\n"
                     "  - {name: quiet, type: error_groups, channels: [chat]}\n" +
                     kChannels);
  ASSERT_TRUE(config.ok()) << config.error().message;
  const auto& errs = config->error_conditions[0].common;
  ASSERT_EQ(errs.escalation.size(), 2u);
  EXPECT_EQ(errs.escalation[1].after, minutes(5));
  EXPECT_EQ(errs.escalation[1].channels, (std::vector<std::string>{"pager"}));
  EXPECT_TRUE(config->error_conditions[1].common.escalation.empty());
  EXPECT_EQ(config->error_conditions[1].common.channels, (std::vector<std::string>{"chat"}));
}

TEST_F(EscalationConfigTest, ARouteMayEscalate) {
  auto config = Load(std::string("conditions:\n  - name: errs\n    type: error_groups\n") +
                     "    channels: [chat]\n    route:\n      - match: {severity: critical}\n" +
                     "        escalation: [{after: 0s, channels: [chat]}, {after: 2m, channels: "
                     "[pager]}]\n      - {channels: [chat]}\n" +
                     kChannels);
  ASSERT_TRUE(config.ok()) << config.error().message;
  const auto& routes = config->error_conditions[0].common.routes;
  ASSERT_EQ(routes.size(), 2u);
  ASSERT_EQ(routes[0].escalation.size(), 2u);
  EXPECT_TRUE(routes[0].channels.empty());
  EXPECT_EQ(routes[0].escalation[1].after, minutes(2));
}

// A later tier pages through a grouped channel like any other: one message for an outage's
// keys per tier (the tier's opens wait in their group until the tier is due).
TEST_F(EscalationConfigTest, AGroupedChannelMayBeALaterTier) {
  auto config = Load(std::string("conditions:\n  - name: errs\n    type: error_groups\n") +
                     "    escalation: [{after: 0s, channels: [chat]}, {after: 1m, channels: "
                     "[digest]}]\n" +
                     kChannels);
  ASSERT_TRUE(config.ok()) << config.error().message;
  const auto& tiers = config->error_conditions[0].common.escalation;
  ASSERT_EQ(tiers.size(), 2u);
  EXPECT_EQ(tiers[1].channels, (std::vector<std::string>{"digest"}));
  EXPECT_EQ(tiers[1].after, minutes(1));
}

TEST_F(EscalationConfigTest, RefusesBadTiersWhereTheyAre) {
  const std::string head = "conditions:\n  - name: errs\n    type: error_groups\n";
  ExpectError(
      head + "    channels: [chat]\n    escalation: [{after: 0s, channels: [chat]}]\n" + kChannels,
      {"q.yaml:5:", "either channels or escalation"});
  ExpectError(head + "    escalation: []\n" + kChannels, {"q.yaml:4:", "at least one tier"});
  ExpectError(head + "    escalation: [{channels: [chat]}]\n" + kChannels, {"needs after"});
  ExpectError(head +
                  "    escalation: [{after: 5m, channels: [chat]}, {after: 1m, channels: "
                  "[pager]}]\n" +
                  kChannels,
              {"q.yaml:4:", "tier 2", "later than the tier before"});
  ExpectError(head +
                  "    escalation: [{after: 0s, channels: [chat]}, {after: 1m, channels: "
                  "[chat]}]\n" +
                  kChannels,
              {"tier 2", "\"chat\" is in an earlier tier"});
  ExpectError(head +
                  "    escalation: [{after: 0s, channels: [chat]}, {after: 1m, channels: "
                  "[sms]}]\n" +
                  kChannels,
              {"condition \"errs\"", "\"sms\"", "not in `channels`"});
  ExpectError(head +
                  "    channels: [chat]\n    route:\n      - {match: {tenant: a}, escalation: "
                  "[{after: 1m, channels: "
                  "[sms]}]}\n" +
                  kChannels,
              {"route[0]", "\"sms\""});
}

}  // namespace
}  // namespace quell::config
