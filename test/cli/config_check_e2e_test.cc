// `quell config check` runs what `quell run` checks at start (issue 13): the store URL's form,
// the Infrai key, channel secrets, templates against the incident view, and each PromQL query
// sent once to the configured Prometheus; every problem with file:line:column, no secret in
// any output. And `quell run` on a listen address another process holds fails at start.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "child_process.h"
#include "prometheus_server.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"

namespace quell {
namespace {

constexpr const char* kApiKey = "ifr_pk_proj_check_0123456789abcdef";
constexpr const char* kHookSecret = "whsec-check-3f2a-c4d1";
constexpr const char* kStorePassword = "pg-s3cr3t-81f0";

class ConfigCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("INFRAI_API_KEY", kApiKey, 1);   // NOLINT(concurrency-mt-unsafe)
    setenv("HOOK_SECRET", kHookSecret, 1);  // NOLINT(concurrency-mt-unsafe)
    unsetenv("INFRAI_BASE_URL");            // NOLINT(concurrency-mt-unsafe)
    config_ = (dir_ / "quell.yaml").string();
  }

  // A config that passes, with `store`, and `tail` appended (channels, prometheus, ...).
  void Write(const std::string& store, const std::string& tail) {
    std::ofstream(config_) << "store: " << store << "\n"  // line 1
                           << "conditions:\n"             // line 2
                           << "  - name: agent-errors\n"  // line 3
                           << "    type: error_groups\n"  // line 4
                           << tail;
  }
  static std::string Hook(const std::string& extra = "") {
    return "channels:\n"
           "  - name: hook\n"
           "    type: webhook\n"
           "    url: http://127.0.0.1:9/hook\n"
           "    secret_env: HOOK_SECRET\n" +
           extra + "defaults: {channels: [hook]}\n";
  }
  std::string Sqlite() const { return "sqlite:" + (dir_ / "quell.db").string(); }

  testing::ProcessResult Check(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {testing::QuellBinary(), "config", "check", "-c", config_};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = testing::RunProcess(args);
    for (const char* secret : {kApiKey, kHookSecret, kStorePassword}) {
      EXPECT_EQ(r.out.find(secret), std::string::npos) << "a secret reached stdout: " << r.out;
      EXPECT_EQ(r.err.find(secret), std::string::npos) << "a secret reached stderr: " << r.err;
    }
    return r;
  }
  bool Says(const testing::ProcessResult& r, const std::string& located) const {
    return r.out.find(config_ + ":" + located) != std::string::npos;
  }

  testing::ScratchDir dir_{"quell-check"};
  std::string config_;
};

TEST_F(ConfigCheckTest, AStoreOfAnotherKindIsAnErrorAtTheStoreLineWithThePasswordMasked) {
  Write(std::string("mysql://quell:") + kStorePassword + "@db/quell", "");
  auto r = Check();
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(Says(r, "1:8: store: expected sqlite:PATH or postgresql://")) << r.out;
  EXPECT_NE(r.out.find("mysql://quell:****@db/quell"), std::string::npos) << r.out;

  // And `quell run` says the same, at the same place.
  auto run = testing::RunProcess({testing::QuellBinary(), "run", "-c", config_});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(config_ + ":1:8: store:"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find(kStorePassword), std::string::npos) << run.err;
}

// `quell config check FILE`, as people type it, checks FILE like `-c FILE`.
TEST_F(ConfigCheckTest, TakesTheFileAsAnArgumentToo) {
  Write(Sqlite(), Hook());
  const auto flagged = Check();
  ASSERT_EQ(flagged.exit_code, 0) << flagged.out << flagged.err;
  const auto positional = testing::RunProcess({testing::QuellBinary(), "config", "check", config_});
  EXPECT_EQ(positional.exit_code, 0) << positional.out << positional.err;
  EXPECT_EQ(positional.out, flagged.out);
  const auto listed = testing::RunProcess({testing::QuellBinary(), "maintenance", "list", config_});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
}

// The bundled example shows a maintenance window (and passes the check with it).
TEST_F(ConfigCheckTest, TheExampleHasAMaintenanceWindowThatPassesTheCheck) {
  const std::string example = testing::SourcePath("examples/quell.yaml");
  const auto checked =
      testing::RunProcess({testing::QuellBinary(), "config", "check", "-c", example});
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
  const auto listed = testing::RunProcess({testing::QuellBinary(), "maintenance", "list", "-c",
                                           example, "--at", "2026-03-31T07:30:00Z"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find(R"("name":"tuesday-deploys")"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find(R"("active":true)"), std::string::npos) << listed.out;
}

TEST_F(ConfigCheckTest, APostgresPasswordIsMaskedInTheSummary) {
  Write(std::string("postgresql://quell:") + kStorePassword + "@127.0.0.1:1/quell", "");
  auto r = Check();
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("postgresql://quell:****@127.0.0.1:1/quell"), std::string::npos) << r.out;
}

TEST_F(ConfigCheckTest, AnUnsetInfraiKeyIsAnErrorAtTheConditionThatNeedsIt) {
  unsetenv("INFRAI_API_KEY");  // NOLINT(concurrency-mt-unsafe)
  Write(Sqlite(), "");
  auto r = Check();
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(Says(r, "4:11: conditions[0].type: no Infrai API key")) << r.out;
  EXPECT_NE(r.out.find("INFRAI_API_KEY (not set)"), std::string::npos) << r.out;
}

// `run` refuses the same config with the same line, before it opens (and so creates) the store:
// a packaged service's first start with the shipped config leaves no empty database behind.
TEST_F(ConfigCheckTest, RunRefusesAnUnsetInfraiKeyWithoutCreatingTheStore) {
  unsetenv("INFRAI_API_KEY");  // NOLINT(concurrency-mt-unsafe)
  Write(Sqlite(), Hook());
  const auto r = testing::RunProcess({testing::QuellBinary(), "run", "-c", config_});
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("no Infrai API key"), std::string::npos) << r.out << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "quell.db")) << "run created the store";
}

TEST_F(ConfigCheckTest, AnUnsetChannelSecretIsAnError) {
  unsetenv("HOOK_SECRET");  // NOLINT(concurrency-mt-unsafe)
  Write(Sqlite(), Hook());
  auto r = Check();
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(Says(r, "9:17: channels[0].secret_env: HOOK_SECRET is not set")) << r.out;
}

TEST_F(ConfigCheckTest, ATemplateNamingAFieldTheViewLacksIsAnErrorAtTheTemplate) {
  Write(Sqlite(), Hook("    templates:\n      body: \"{{kee}} failed\"\n"));
  auto r = Check();
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(Says(r,
                   "11:13: channels[0].templates.body: channel \"hook\": line 1: unknown "
                   "field \"kee\""))
      << r.out;
}

TEST_F(ConfigCheckTest, GroupingIsAcceptedAndRefusedAlikeByCheckAndRun) {
  Write(Sqlite(), Hook("    group_by: [condition, tenant]\n    group_wait: 30s\n"
                       "    group_interval: 5m\n"));
  auto good = Check();
  EXPECT_EQ(good.exit_code, 0) << good.out;

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"    group_by: condition\n", "10:15: channels[0].group_by: expected a non-empty list"},
      {"    group_by: [condition, \"\"]\n", "10:27: channels[0].group_by: a name must not be"},
      {"    group_by: [tenant]\n    group_wait: -1s\n", "11:17: channels[0].group_wait:"},
      {"    group_by: [tenant]\n    group_interval: 5 minutes\n",
       "11:21: channels[0].group_interval:"},
      {"    group_interval: 5m\n", "10:21: channels[0].group_interval: needs group_by"},
  };
  for (const auto& [extra, located] : bad) {
    Write(Sqlite(), Hook(extra));
    auto r = Check();
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_TRUE(Says(r, located)) << r.out;
    auto run = testing::RunProcess(
        {"/usr/bin/timeout", "20", testing::QuellBinary(), "run", "-c", config_});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_NE(run.err.find(config_ + ":" + located), std::string::npos) << run.err;
  }
}

TEST_F(ConfigCheckTest, EveryProblemIsReportedInFileOrder) {
  unsetenv("HOOK_SECRET");  // NOLINT(concurrency-mt-unsafe)
  Write("mysql://x", Hook("    templates: {subject: \"{{kee}}\"}\n    bogus: 1\n"));
  auto r = Check();
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("config check: 4 errors"), std::string::npos) << r.out;
  EXPECT_LT(r.out.find(config_ + ":1:8:"), r.out.find(config_ + ":9:17:")) << r.out;
}

TEST_F(ConfigCheckTest, PromQlQueriesAreSentToPrometheusAndASyntaxErrorIsLocated) {
  QUELL_REQUIRE_PROMETHEUS();
  auto prometheus = testing::PrometheusServer::Start(testing::PrometheusServer::Await::kReady);
  ASSERT_TRUE(prometheus.ok()) << prometheus.error().message;
  const std::string tail =
      "  - name: latency\n"           // line 5
      "    type: prometheus\n"        // line 6
      "    key: \"{job}\"\n"          // line 7
      "    query: \"rate(up[5m]\"\n"  // line 8
      "    above: 1\n"                // line 9
      "  - name: fine\n"              // line 10
      "    type: prometheus\n"        // line 11
      "    key: \"{job}\"\n"          // line 12
      "    query: \"up\"\n"           // line 13
      "    above: 1\n"                // line 14
      "prometheus:\n"                 // line 15
      "  url: " +
      (*prometheus)->base_url() + "\n";  // line 16
  Write(Sqlite(), tail);
  auto r = Check();
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(Says(r, "8:12: conditions[1].query: Prometheus at ")) << r.out;
  EXPECT_NE(r.out.find("parse error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("config check: 1 error in"), std::string::npos) << r.out;

  // Offline: nothing is sent, and the summary says the queries went unchecked.
  r = Check({"--offline"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("offline"), std::string::npos) << r.out;

  // Prometheus gone: an error that says it could not be reached.
  (*prometheus)->Stop();
  r = Check();
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(Says(r, "16:8: prometheus.url: cannot reach Prometheus at ")) << r.out;
}

// Issue 13: cpp-httplib's SO_REUSEPORT let a second daemon bind a port another holds.
TEST_F(ConfigCheckTest, RunOnAListenAddressAnotherProcessHoldsFailsWithOneClearLine) {
  httplib::Server holder;  // as a first `quell run` would: cpp-httplib's default options
  const int port = holder.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  Write(Sqlite(), "http: {listen: \"127.0.0.1:" + std::to_string(port) + "\"}\n");
  // `timeout` ends a daemon that started after all, so the test fails instead of hanging.
  auto r =
      testing::RunProcess({"/usr/bin/timeout", "20", testing::QuellBinary(), "run", "-c", config_});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("quell run: http.listen 127.0.0.1:" + std::to_string(port) +
                       ": cannot listen on 127.0.0.1:" + std::to_string(port) +
                       ": the address is already in use"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace quell
