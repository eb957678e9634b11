// The `datadog:` section and `type: datadog_monitors` conditions as the loader reads them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "quell/adapters/config/config_loader.h"

namespace quell::config {
namespace {

class DatadogConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("quell-datadog-config-" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& text) {
    const auto path = dir_ / "dd.yaml";
    std::ofstream(path) << text;
    return path.string();
  }

  EnvLookup Env() const {
    return [this](std::string_view name) -> std::optional<std::string> {
      const auto it = env_.find(std::string(name));
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
  }

  std::filesystem::path dir_;
  std::map<std::string, std::string> env_ = {{"DD_API_KEY", "api-1"}, {"DD_APP_KEY", "app-1"}};
};

constexpr const char* kConfig = R"(store: sqlite:dd.db
datadog:
  site: us5.datadoghq.com
  retry: {max_attempts: 2}
conditions:
  - name: dd-support
    type: datadog_monitors
    monitor_tags: ["team:support", "env:prod"]
    key: "{monitor_id}:{tags.host|all}"
    interval: 30s
)";

TEST_F(DatadogConfigTest, ReadsTheSectionAndTheCondition) {
  auto config = LoadConfig(Write(kConfig), Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_TRUE(config->datadog.enabled);
  EXPECT_EQ(config->datadog.api_url, "https://api.us5.datadoghq.com");
  EXPECT_EQ(config->datadog.app_url, "https://us5.datadoghq.com");
  EXPECT_EQ(config->datadog.api_key, "api-1");
  EXPECT_EQ(config->datadog.app_key, "app-1");
  EXPECT_TRUE(config->datadog.keys_unresolved.empty());
  EXPECT_EQ(config->datadog.http.retry.max_attempts, 2U);
  ASSERT_EQ(config->datadog_conditions.size(), 1U);
  const core::MonitorCondition& condition = config->datadog_conditions[0].condition;
  EXPECT_EQ(condition.common.name, "dd-support");
  EXPECT_EQ(condition.common.interval, std::chrono::seconds(30));
  EXPECT_EQ(condition.query.monitor_tags, (std::vector<std::string>{"team:support", "env:prod"}));
  EXPECT_EQ(condition.key.text(), "{monitor_id}:{tags.host|all}");
}

TEST_F(DatadogConfigTest, BaseUrlOverridesTheSitesApiAndKeysComeFromFiles) {
  std::ofstream(dir_ / "api-key") << "api-from-file\n";
  std::ofstream(dir_ / "app-key") << "app-from-file\n";
  env_.clear();
  auto config = LoadConfig(Write(R"(datadog:
  site: datadoghq.eu
  base_url: http://127.0.0.1:9999/
  api_key_file: api-key
  app_key_file: app-key
conditions:
  - {name: dd, type: datadog_monitors}
)"),
                           Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->datadog.api_url, "http://127.0.0.1:9999");
  EXPECT_EQ(config->datadog.app_url, "https://app.datadoghq.eu");
  EXPECT_EQ(config->datadog.api_key, "api-from-file");
  EXPECT_EQ(config->datadog.app_key, "app-from-file");
  EXPECT_EQ(config->datadog_conditions[0].condition.key.text(), "{monitor_id}:{group}");
}

TEST_F(DatadogConfigTest, AnUnsetKeyVariableIsNamedNotFatalToReading) {
  env_.erase("DD_APP_KEY");
  auto config = LoadConfig(Write(kConfig), Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_NE(config->datadog.keys_unresolved.find("datadog.app_key_env: DD_APP_KEY is not set"),
            std::string::npos)
      << config->datadog.keys_unresolved;
}

TEST_F(DatadogConfigTest, RefusesWhatCannotWorkNamingTheSetting) {
  struct Case {
    std::string text;
    std::string message;
  };
  for (const Case& c : {
           Case{"conditions:\n  - {name: dd, type: datadog_monitors}\n",
                "conditions[0].type: a datadog_monitors condition needs a datadog: section"},
           Case{"datadog: {site: datadoghq.org}\nconditions:\n  - {name: dd, type: "
                "datadog_monitors}\n",
                "datadog.site: expected datadoghq.com, datadoghq.eu"},
           Case{"datadog: {api_key: abc}\nconditions:\n  - {name: dd, type: datadog_monitors}\n",
                "secrets do not belong in the config"},
           Case{"datadog: {}\nconditions:\n  - {name: dd, type: datadog_monitors, key: "
                "\"{title}\"}\n",
                "{title}: a datadog_monitors key reads monitor_id"},
       }) {
    auto config = LoadConfig(Write(c.text), Env());
    ASSERT_FALSE(config.ok()) << c.text;
    EXPECT_NE(config.error().message.find(c.message), std::string::npos) << config.error().message;
  }
}

}  // namespace
}  // namespace quell::config
