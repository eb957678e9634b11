// `quell shadow-report` end to end: three `quell poll-once` cycles from quell-sim into a real
// SQLite file, then the report's numbers, as table and JSON.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "quell/sim/server.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"

namespace quell {
namespace {

using nlohmann::json;

constexpr const char* kKey = "ifr_pk_proj_e2e_0123456789abcdef";

json Group(const std::string& id, const std::string& tenant, const std::string& stage) {
  return {{"id", id},
          {"title", "failure " + id},
          {"level", "error"},
          {"tags", {{"tenant", tenant}, {"agent_stage", stage}}},
          {"events", 1}};
}

class ShadowReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Three acme failures in one stage and one globex failure; globex's resolves before poll 3.
    json scenario = {
        {"clock", {{"start", "2026-12-02T09:00:00Z"}, {"advance_per_poll", "1m"}}},
        {"groups",
         {Group("grp_a1", "acme", "model-answer"), Group("grp_a2", "acme", "model-answer"),
          Group("grp_a3", "acme", "model-answer"), Group("grp_g1", "globex", "retrieval")}},
        {"timeline",
         {{{"poll", 2}, {"actions", {{{"op", "event"}, {"group", "grp_a1"}}}}},
          {{"poll", 3}, {"actions", {{{"op", "resolve"}, {"group", "grp_g1"}}}}}}}};
    sim::SimOptions options;
    options.scenario = std::move(scenario);
    sim_ = std::make_unique<sim::SimServer>(std::move(options));
    auto port = sim_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    base_url_ = "http://127.0.0.1:" + std::to_string(*port);
    // One condition keyed per stage (merges the acme groups), one keyed per group for acme:
    // each acme group is then seen under two keys.
    config_ = (dir_ / "quell.yaml").string();
    std::ofstream(config_) << R"(store: ${QUELL_STORE}
infrai:
  base_url: ${INFRAI_BASE_URL}
defaults: {healthy_polls_to_close: 1}
conditions:
  - {name: by-stage, type: error_groups, key: "{tags.tenant}:{tags.agent_stage}"}
  - {name: by-group, type: error_groups, key: "grp:{error_group_id}", tags: {tenant: acme}}
)";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  std::string Store() const { return "sqlite:" + (dir_ / "quell.db").string(); }

  testing::ProcessResult Quell(std::vector<std::string> args) {
    // The child inherits the environment; nothing else in this process reads it.
    setenv("INFRAI_BASE_URL", base_url_.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    setenv("INFRAI_API_KEY", kKey, 1);                // NOLINT(concurrency-mt-unsafe)
    setenv("QUELL_STORE", Store().c_str(), 1);        // NOLINT(concurrency-mt-unsafe)
    args.insert(args.begin(), testing::QuellBinary());
    return testing::RunProcess(args);
  }

  testing::ScratchDir dir_{"quell-shadow"};
  std::unique_ptr<sim::SimServer> sim_;
  std::string base_url_;
  std::string config_;
};

TEST_F(ShadowReportTest, CountsDecisionsAgainstGroupsAndFindsMergedAndSplitKeys) {
  for (int poll = 0; poll < 3; ++poll) {
    auto r = Quell({"poll-once", "-c", config_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto r = Quell({"shadow-report", "--since", "24h", "-c", config_, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(r.out);
  // Poll 1 opens all five keys; polls 2 and 3 see the acme keys still failing; globex's key
  // resolves at poll 3 (it was failing at poll 2).
  EXPECT_EQ(report["decisions"]["notify"], 5) << r.out;
  EXPECT_EQ(report["decisions"]["update_only"], 9) << r.out;
  EXPECT_EQ(report["decisions"]["resolve"], 1) << r.out;
  EXPECT_EQ(report["error_groups"], 4);
  EXPECT_EQ(report["keys"], 5);
  EXPECT_EQ(report["merged_keys"], 1);
  ASSERT_EQ(report["merged"].size(), 1U);
  EXPECT_EQ(report["merged"][0]["key"], "acme:model-answer");
  EXPECT_EQ(report["merged"][0]["groups"], 3);
  EXPECT_EQ(report["merged"][0]["sample_groups"], json({"grp_a1", "grp_a2", "grp_a3"}));
  EXPECT_EQ(report["split_groups"], 3);
  ASSERT_EQ(report["split"].size(), 3U);
  EXPECT_EQ(report["split"][0]["group_id"], "grp_a1");
  EXPECT_EQ(report["split"][0]["keys"], 2);
  EXPECT_EQ(report["split"][0]["sample_keys"], json({"acme:model-answer", "grp:grp_a1"}));

  auto table = Quell({"shadow-report", "--store", Store(), "--top", "1"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("decisions: notify 5, update_only 9, resolve 1"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("error groups seen failing: 4, under 5 keys"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("grp_a1,grp_a2,grp_a3"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("error groups split over several keys: 3"), std::string::npos)
      << table.out;
  EXPECT_EQ(table.out.find("grp:grp_a2"), std::string::npos) << "--top 1 lists one split group";
}

TEST_F(ShadowReportTest, ABadSinceOrFormatIsAUsageError) {
  auto r = Quell({"shadow-report", "--store", Store(), "--since", "yesterday"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--since"), std::string::npos) << r.err;
  r = Quell({"shadow-report", "--store", Store(), "--format", "xml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace quell
