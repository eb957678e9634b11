// `quell incidents list` filters as GET /v1/incidents does (status, condition, label, limit),
// shows who acked and which condition, `incidents show` says who acked, and a mistyped
// command gets a "did you mean" instead of "A subcommand is required". The real binary on a
// real SQLite file.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "run_process.h"
#include "test_paths.h"

namespace {

using nlohmann::json;
using quell::testing::ProcessResult;
using quell::testing::RunProcess;

class IncidentsListE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/quell-list-e2e-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    store_url_ = "sqlite:" + dir_ + "/quell.db";
    std::string input;
    for (const auto& [key, condition, tenant] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"acme:db", "db", "acme"}, {"beta:db", "db", "beta"}, {"acme:web", "web", "acme"}}) {
      input += R"({"at":"2026-12-02T09:00:00Z","key":")" + key + R"(","unhealthy":true,)" +
               R"("condition":")" + condition + R"(","labels":{"tenant":")" + tenant + "\"}}\n";
    }
    ProcessResult r = Quell({"apply"}, input);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = Quell({"incidents", "ack", "acme:db", "--by", "ana"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = Quell({"incidents", "resolve", "beta:db", "--by", "ana"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ProcessResult Quell(std::vector<std::string> args, const std::string& input = "") {
    std::vector<std::string> argv{quell::testing::QuellBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--store");
    argv.push_back(store_url_);
    return RunProcess(argv, input);
  }

  // The keys `incidents list` prints in jsonl with `filters`.
  std::vector<std::string> Keys(std::vector<std::string> filters) {
    filters.insert(filters.begin(), {"incidents", "list", "--format", "jsonl"});
    const ProcessResult r = Quell(filters);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> keys;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      keys.push_back(json::parse(line)["key"].get<std::string>());
    }
    return keys;
  }

  std::string dir_;
  std::string store_url_;
};

using KeyList = std::vector<std::string>;

TEST_F(IncidentsListE2eTest, FiltersByStatusConditionAndLabelAsTheApiDoes) {
  EXPECT_EQ(Keys({}), (KeyList{"acme:db", "acme:web", "beta:db"}));
  EXPECT_EQ(Keys({"--status", "open"}), (KeyList{"acme:db", "acme:web"}));
  EXPECT_EQ(Keys({"--status", "resolved"}), (KeyList{"beta:db"}));
  EXPECT_EQ(Keys({"--condition", "db"}), (KeyList{"acme:db", "beta:db"}));
  EXPECT_EQ(Keys({"--label", "tenant=acme"}), (KeyList{"acme:db", "acme:web"}));
  EXPECT_EQ(Keys({"--status", "open", "--condition", "db", "--label", "tenant=acme"}),
            (KeyList{"acme:db"}));
}

TEST_F(IncidentsListE2eTest, ALimitCutsTheListAndStderrSaysHowManyMatched) {
  const ProcessResult r = Quell({"incidents", "list", "--limit", "1", "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.err.find("1 of 3 matching incidents"), std::string::npos) << r.err;
}

TEST_F(IncidentsListE2eTest, ABadFilterIsAUsageErrorNamingTheFlag) {
  ProcessResult r = Quell({"incidents", "list", "--status", "opne"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--status: want open, resolved or all, got \"opne\""), std::string::npos)
      << r.err;
  r = Quell({"incidents", "list", "--label", "tenant"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--label: want name=value"), std::string::npos) << r.err;
  r = Quell({"incidents", "list", "--limit", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--limit:"), std::string::npos) << r.err;
}

TEST_F(IncidentsListE2eTest, TheTableShowsTheConditionAndWhoAcked) {
  const ProcessResult r = Quell({"incidents", "list", "--status", "open"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream cells(line);
    rows.emplace_back();
    for (std::string cell; cells >> cell;) rows.back().push_back(cell);
  }
  ASSERT_EQ(rows.size(), 3U) << r.out;
  ASSERT_GE(rows[0].size(), 4U) << r.out;
  EXPECT_EQ((std::vector<std::string>(rows[0].begin(), rows[0].begin() + 4)),
            (std::vector<std::string>{"KEY", "CONDITION", "STATUS", "ACKED"}))
      << r.out;
  EXPECT_EQ((std::vector<std::string>(rows[1].begin(), rows[1].begin() + 4)),
            (std::vector<std::string>{"acme:db", "db", "open", "ana"}))
      << r.out;
  EXPECT_EQ((std::vector<std::string>(rows[2].begin(), rows[2].begin() + 4)),
            (std::vector<std::string>{"acme:web", "web", "open", "-"}))
      << r.out;
}

TEST_F(IncidentsListE2eTest, ShowSaysWhoAcked) {
  const ProcessResult r = Quell({"incidents", "show", "acme:db"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  bool said = false;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream cells(line);
    std::string field;
    std::string value;
    cells >> field >> value;
    said = said || (field == "acked_by" && value == "ana");
  }
  EXPECT_TRUE(said) << r.out;
}

TEST(CommandSuggestionE2eTest, AMistypedCommandGetsTheNearestOne) {
  ProcessResult r = RunProcess({quell::testing::QuellBinary(), "incidnets", "list"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("quell: unknown command \"incidnets\"; did you mean \"incidents\"?"),
            std::string::npos)
      << r.err;
  r = RunProcess(
      {quell::testing::QuellBinary(), "incidents", "lsit", "--store", "sqlite:/nonexistent.db"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("quell incidents: unknown command \"lsit\"; did you mean \"list\"?"),
            std::string::npos)
      << r.err;
  // Nothing near: every command is named.
  r = RunProcess({quell::testing::QuellBinary(), "frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("quell: unknown command \"frobnicate\"; the commands are: replay, apply"),
            std::string::npos)
      << r.err;
  // A known command's own mistakes are still CLI11's to report.
  r = RunProcess({quell::testing::QuellBinary(), "incidents", "list", "--bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find("unknown command"), std::string::npos) << r.err;
}

}  // namespace
