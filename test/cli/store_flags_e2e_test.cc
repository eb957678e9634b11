// How the commands that read a store find it, as a user types them: -c FILE or --store URL,
// from any directory, never creating a store they were only asked to read; and the exit code
// of a usage error.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run_process.h"
#include "test_paths.h"

namespace {

using quell::testing::ProcessResult;
using quell::testing::RunProcess;

class StoreFlagsE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/quell-store-flags-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::filesystem::create_directories(dir_ / "elsewhere");
    std::filesystem::create_directories(dir_ / "data");
    store_ = dir_ / "data" / "quell.db";
    config_ = dir_ / "quell.yaml";
    std::ofstream(config_) << "store: sqlite:" << store_.string() << R"(
infrai:
  base_url: http://127.0.0.1:9
conditions:
  - {name: c, type: error_groups, key: "{error_group_id}"}
)";
    setenv("INFRAI_API_KEY", "ifr_test", 1);  // NOLINT(concurrency-mt-unsafe)
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // quell with `args`, run from `cwd` as a user in another directory would.
  static ProcessResult QuellIn(const std::filesystem::path& cwd, std::vector<std::string> args) {
    std::vector<std::string> argv{"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", cwd.string(),
                                  quell::testing::QuellBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv);
  }

  static std::string Obs(const std::string& key) {
    return R"({"at":"2026-12-02T09:00:00Z","key":")" + key +
           R"(","unhealthy":true,"condition":"c"})" + "\n";
  }

  std::filesystem::path dir_;
  std::filesystem::path store_;
  std::filesystem::path config_;
};

TEST_F(StoreFlagsE2eTest, ReadCommandsTakeTheStoreFromTheConfigFromAnyDirectory) {
  ProcessResult r =
      RunProcess({quell::testing::QuellBinary(), "apply", "-c", config_.string()}, Obs("acme:db"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(std::filesystem::exists(store_));

  const std::filesystem::path elsewhere = dir_ / "elsewhere";
  const std::string c = config_.string();
  r = QuellIn(elsewhere, {"incidents", "list", "-c", c});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("acme:db"), std::string::npos) << r.out;
  r = QuellIn(elsewhere, {"incidents", "show", "acme:db", "-c", c, "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("key":"acme:db")"), std::string::npos) << r.out;
  r = QuellIn(elsewhere, {"outbox", "list", "-c", c, "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("key":"acme:db")"), std::string::npos) << r.out;
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"silence", "list"}, {"outbox", "dead", "list"}, {"shadow-report"}}) {
    args.insert(args.end(), {"-c", c});
    r = QuellIn(elsewhere, args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(elsewhere / "quell.db"));
}

TEST_F(StoreFlagsE2eTest, StoreWinsOverTheConfig) {
  const std::string other = "sqlite:" + (dir_ / "other.db").string();
  ProcessResult r =
      RunProcess({quell::testing::QuellBinary(), "apply", "-c", config_.string()}, Obs("acme:db"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunProcess({quell::testing::QuellBinary(), "apply", "--store", other}, Obs("beta:db"));
  ASSERT_EQ(r.exit_code, 0) << r.err;

  r = RunProcess({quell::testing::QuellBinary(), "incidents", "list", "-c", config_.string(),
                  "--store", other});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("beta:db"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("acme:db"), std::string::npos) << r.out;
}

TEST_F(StoreFlagsE2eTest, NoReadCommandCreatesAMissingStore) {
  const std::filesystem::path empty = dir_ / "elsewhere";
  const std::vector<std::vector<std::string>> commands = {
      {"incidents", "list"}, {"incidents", "show", "acme:db"}, {"incidents", "ack", "acme:db"},
      {"outbox", "list"},    {"outbox", "dead", "list"},       {"silence", "list"},
      {"shadow-report"},
  };
  for (const auto& args : commands) {
    ProcessResult r = QuellIn(empty, args);
    EXPECT_EQ(r.exit_code, 1) << args[0] << " " << args[1 % args.size()] << ": " << r.err;
    EXPECT_NE(r.err.find("no store at " + (empty / "quell.db").string()), std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(empty / "quell.db")) << args[0];
  }
  // The config's store, named but never created, is reported the same way.
  ProcessResult r = QuellIn(empty, {"incidents", "list", "-c", config_.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("no store at " + store_.string()), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(store_));
}

TEST_F(StoreFlagsE2eTest, UsageErrorsExitTwoAndHelpExitsZero) {
  const std::vector<std::vector<std::string>> usage_errors = {
      {},                                      // no command
      {"incidents", "list", "--bogus"},        // unknown flag
      {"incidents", "show"},                   // missing KEY
      {"incidents", "list", "--format", "x"},  // bad value
      {"silence", "add", "acme:*"},            // missing --for and --reason
      {"no-such-command"},
  };
  for (const auto& args : usage_errors) {
    std::vector<std::string> argv{quell::testing::QuellBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = RunProcess(argv);
    EXPECT_EQ(r.exit_code, 2) << (args.empty() ? "(none)" : args.back()) << ": " << r.err;
    EXPECT_FALSE(r.err.empty());
  }
  EXPECT_EQ(RunProcess({quell::testing::QuellBinary(), "--help"}).exit_code, 0);
  EXPECT_EQ(RunProcess({quell::testing::QuellBinary(), "incidents", "list", "--help"}).exit_code,
            0);
  EXPECT_EQ(RunProcess({quell::testing::QuellBinary(), "--version"}).exit_code, 0);
}

}  // namespace
