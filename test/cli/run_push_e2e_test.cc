// A config of push conditions only, through the real binary: `quell config check` passes with
// no source section and no Infrai key (the API token they need given), and `quell run` starts with
// it, answers /healthz, and runs the stale sweep every interval (its cycle shows in GET /v1/sources
// under source "push"); an incident left unrefreshed past expire_after resolves with reason
// "expired".
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "quell/core/text/time.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"

namespace quell {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using testing::Events;
using testing::HttpGet;
using testing::WaitFor;

class RunPushTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Nothing of a source in the environment: the config must not need it.
    unsetenv("INFRAI_API_KEY");   // NOLINT(concurrency-mt-unsafe)
    unsetenv("INFRAI_BASE_URL");  // NOLINT(concurrency-mt-unsafe)
    // Without it every push would be refused, so neither check nor run accepts the config.
    setenv("QUELL_PUSH_TEST_TOKEN", "push-test-token-5e1f", 1);  // NOLINT(concurrency-mt-unsafe)
    store_ = "sqlite:" + (dir_ / "quell.db").string();
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
    std::ofstream(config_) << "store: " << store_ << "\n"
                           << "conditions:\n"
                           << "  - name: prom-alerts\n"
                           << "    type: push\n"
                           << "    key: \"{labels.tenant|no-tenant}:{labels.alertname}\"\n"
                           << "    stale_after: 1s\n"
                           << "    expire_after: 2s\n"
                           << "    interval: 1s\n"
                           << "log: {format: json, level: info}\n"
                           << "http: {listen: \"127.0.0.1:0\", open_reads: true, "
                              "token_env: QUELL_PUSH_TEST_TOKEN}\n";
  }

  testing::ProcessResult Quell(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), testing::QuellBinary());
    return testing::RunProcess(args, input);
  }

  std::vector<json> Lines(const std::vector<std::string>& args) {
    auto r = Quell(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<json> out;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }

  testing::ScratchDir dir_{"quell-run-push"};
  std::string store_;
  std::string config_;
  std::filesystem::path log_;
};

TEST_F(RunPushTest, ConfigCheckPassesWithoutASourceSectionOrAKey) {
  const auto r = Quell({"config", "check", "-c", config_, "--offline"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ok: 0 error-group, 0 metric and 1 push conditions"), std::string::npos)
      << r.out;
}

TEST_F(RunPushTest, RunStartsSweepsUnderSourcePushAndExpiresAnUnrefreshedIncident) {
  // An incident of the push condition, opened as a push would open it.
  std::string now;
  core::AppendRfc3339(
      now, std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now()));
  const auto applied =
      Quell({"apply", "--store", store_},
            R"({"at":")" + now +
                R"(","key":"acme:DiskFull","unhealthy":true,"condition":"prom-alerts"})" + "\n");
  ASSERT_EQ(applied.exit_code, 0) << applied.err;

  testing::QuellRun run(config_, log_);
  const int port = run.WaitListening();
  ASSERT_GT(port, 0) << run.Log();
  ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/healthz") == 200; }, seconds(20)))
      << testing::ReadFile(log_);

  json sources;
  ASSERT_TRUE(WaitFor(
      [&] {
        std::string body;
        if (HttpGet(port, "/v1/sources", &body) != 200) return false;
        sources = json::parse(body);
        return !sources["conditions"][0]["last_cycle"].is_null();
      },
      seconds(20)))
      << sources.dump() << testing::ReadFile(log_);
  ASSERT_EQ(sources["sources"].size(), 1u) << sources.dump();
  EXPECT_EQ(
      sources["sources"][0],
      (json{
          {"name", "push"}, {"type", "push"}, {"base_url", ""}, {"conditions", {"prom-alerts"}}}));
  const json& condition = sources["conditions"][0];
  EXPECT_EQ(condition["name"], "prom-alerts");
  EXPECT_EQ(condition["source"], "push");
  EXPECT_EQ(condition["interval"], "1s");
  EXPECT_EQ(condition["last_cycle"]["source_ok"], true) << condition.dump();
  EXPECT_EQ(condition["last_cycle"]["applied"], true) << condition.dump();

  // Nobody pushes it again: past expire_after (2s) a sweep resolves it, reason "expired".
  std::vector<json> rows;
  ASSERT_TRUE(WaitFor(
      [&] {
        rows = Lines({"outbox", "list", "--format", "jsonl", "--store", store_});
        for (const json& row : rows) {
          if (row.value("transition", "") == "resolve") return true;
        }
        return false;
      },
      seconds(20)))
      << testing::ReadFile(log_);
  std::string body;
  ASSERT_EQ(HttpGet(port, "/v1/incidents/acme:DiskFull", &body), 200) << body;
  const json incident = json::parse(body);
  EXPECT_EQ(incident["incident"]["status"], "resolved") << body;
  bool expired = false;
  for (const json& decision : incident["decisions"]) {
    expired = expired || (decision.value("decision", "") == "resolve" &&
                          decision.value("reason", "") == "expired");
  }
  EXPECT_TRUE(expired) << body;
  EXPECT_TRUE(WIFEXITED(run.Signal(SIGTERM))) << testing::ReadFile(log_);
}

}  // namespace
}  // namespace quell
