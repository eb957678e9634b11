// The `opsgenie` channel's settings: read from the config, its key only by reference, and built
// by the dispatcher's wiring (ChannelProblems builds every channel as `quell dispatch` would).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/system/system_clock.h"
#include "quell/adapters/wiring/dispatch_wiring.h"

namespace quell::config {
namespace {

constexpr const char* kKey = "og-key-4f1c2e9a-0000-4b7d-9c11";

class OpsgenieConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("quell-opsgenie-config-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    env_["OPSGENIE_API_KEY"] = kKey;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  core::Result<Config> Load(const std::string& channel) {
    const auto path = dir_ / "quell.yaml";
    std::ofstream(path) << "channels:\n"
                        << channel
                        << "conditions:\n  - {name: errs, type: error_groups, channels: [og]}\n";
    return LoadConfig(path.string(), [this](std::string_view name) -> std::optional<std::string> {
      const auto it = env_.find(std::string(name));
      if (it == env_.end()) return std::nullopt;
      return it->second;
    });
  }
  void ExpectError(const std::string& channel, std::initializer_list<std::string> parts) {
    auto config = Load(channel);
    ASSERT_FALSE(config.ok()) << channel;
    for (const std::string& part : parts) {
      EXPECT_NE(config.error().message.find(part), std::string::npos)
          << "missing \"" << part << "\" in: " << config.error().message;
    }
    EXPECT_EQ(config.error().message.find(kKey), std::string::npos);
  }

  std::filesystem::path dir_;
  std::map<std::string, std::string> env_;
};

TEST_F(OpsgenieConfigTest, ReadsTheApiUrlTheKeyByReferenceAndTheSource) {
  auto config = Load(
      "  - {name: og, type: opsgenie, api_url: \"https://api.eu.opsgenie.com\",\n"
      "     api_key_env: OPSGENIE_API_KEY, source: checkout-agents, timeout: 5s}\n");
  ASSERT_TRUE(config.ok()) << config.error().message;
  const ChannelConfig& channel = config->channels[0];
  EXPECT_EQ(channel.type(), "opsgenie");
  EXPECT_EQ(channel.As<channels::OpsgenieSettings>().api_url, "https://api.eu.opsgenie.com");
  EXPECT_EQ(channel.As<channels::OpsgenieSettings>().api_key, kKey);
  EXPECT_EQ(channel.As<channels::OpsgenieSettings>().source, "checkout-agents");
  EXPECT_EQ(channel.delivery.timeout, std::chrono::seconds(5));
  system::SystemClock clock;
  EXPECT_TRUE(wiring::ChannelProblems(*config, clock).empty());
}

TEST_F(OpsgenieConfigTest, DefaultsToTheUsApiAndReadsAKeyFile) {
  std::ofstream(dir_ / "opsgenie.key") << kKey << "\n";
  auto config = Load("  - {name: og, type: opsgenie, api_key_file: opsgenie.key}\n");
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->channels[0].As<channels::OpsgenieSettings>().api_url,
            "https://api.opsgenie.com");
  EXPECT_EQ(config->channels[0].As<channels::OpsgenieSettings>().api_key, kKey);
  EXPECT_EQ(config->channels[0].As<channels::OpsgenieSettings>().source, "quell");
}

TEST_F(OpsgenieConfigTest, RefusesAnInlineKeyAMissingKeyAndABadUrl) {
  ExpectError(std::string("  - {name: og, type: opsgenie, api_key: ") + kKey + "}\n",
              {"quell.yaml:2:", "channels[0].api_key", "api_key_env"});
  ExpectError("  - {name: og, type: opsgenie}\n", {"channels[0]", "api_key"});
  ExpectError(
      "  - {name: og, type: opsgenie, api_key_env: OPSGENIE_API_KEY,\n"
      "     api_url: api.opsgenie.com}\n",
      {"channels[0].api_url", "expected a URL starting with http:// or https://"});
  ExpectError("  - {name: og, type: opsgenie, api_key_env: OPSGENIE_API_KEY, source: \"\"}\n",
              {"channels[0].source", "1 to 100 characters"});
  ExpectError("  - {name: og, type: opsgenie, api_key_env: OPSGENIE_API_KEY, url: x}\n",
              {"channels[0].url"});
  ExpectError("  - {name: og, type: opsgeni}\n",
              {"expected webhook, slack, email, sms, pagerduty, opsgenie"});
}

// The poller routes without the key; `quell dispatch` refuses to start, naming the line.
TEST_F(OpsgenieConfigTest, AnUnsetKeyLoadsAndIsAProblemForTheDispatcher) {
  env_.clear();
  auto config = Load("  - {name: og, type: opsgenie, api_key_env: OPSGENIE_API_KEY}\n");
  ASSERT_TRUE(config.ok()) << config.error().message;
  system::SystemClock clock;
  const auto problems = wiring::ChannelProblems(*config, clock);
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems[0].find("quell.yaml:2:"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("api_key_env: OPSGENIE_API_KEY is not set"), std::string::npos)
      << problems[0];
}

}  // namespace
}  // namespace quell::config
