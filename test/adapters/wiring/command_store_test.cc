// Every command's way to its store (wiring::OpenCommandStore), on real SQLite files in a
// temporary directory: --store wins, else the loaded config's store, else the config file's.
#include "quell/adapters/wiring/command_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace quell::wiring {
namespace {

class CommandStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/quell-command-store-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
};

TEST_F(CommandStoreTest, TheFlagWinsOverALoadedConfig) {
  config::Config config;
  config.store_url = "sqlite:" + dir_ + "/config.db";
  auto opened = OpenCommandStore(
      {.store_flag = "sqlite:" + dir_ + "/flag.db", .config_path = "", .config = &config});
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(opened->url, "sqlite:" + dir_ + "/flag.db");
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/flag.db"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/config.db"));
}

TEST_F(CommandStoreTest, ALoadedConfigsStoreIsUsedWithoutReadingTheFileAgain) {
  config::Config config;
  config.store_url = "sqlite:" + dir_ + "/config.db";
  auto opened = OpenCommandStore(
      {.store_flag = "", .config_path = dir_ + "/no-such.yaml", .config = &config});
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(opened->url, config.store_url);
}

TEST_F(CommandStoreTest, AnExistingStoreIsNeverCreated) {
  auto opened = OpenCommandStore({.store_flag = "sqlite:" + dir_ + "/missing.db",
                                  .config_path = "",
                                  .access = StoreAccess::kExisting});
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, core::ErrorCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/missing.db"));
}

TEST_F(CommandStoreTest, AConfigThatDoesNotLoadIsAnInvalidArgument) {
  std::ofstream(dir_ + "/broken.yaml") << "store: [unclosed\n";
  auto opened = OpenCommandStore({.store_flag = "", .config_path = dir_ + "/broken.yaml"});
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, core::ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace quell::wiring
