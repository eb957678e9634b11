// Issue 31's item 3 through `quell run`: a group of members on a grouped webhook, an
// operator's silence over most of them, and recoveries. Every group message's counts must
// agree with the store (GET /v1/incidents?status=open) when it is sent, silenced members are
// counted as silenced, and their recoveries reach the group as a follow-up. quell-sim in
// process, the daemon as a child process on a real SQLite file, a loopback webhook receiver.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "daemon_probe.h"
#include "quell/sim/scenario.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"
#include "webhook_receiver.h"

namespace quell {
namespace run_group_silence_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kHookSecret = "whsec-group-silence-41b";
// Three tenants stay unsilenced, five ("s...") are silenced after the first message.
const std::vector<std::string> kTenants = {"a0", "a1", "a2", "s0", "s1", "s2", "s3", "s4"};

class RunGroupSilenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    json groups = json::array();
    for (const std::string& tenant : kTenants) {
      groups.push_back({{"id", "grp_" + tenant},
                        {"title", "Model answer failed"},
                        {"tags", {{"tenant", tenant}, {"agent_stage", "checkout"}}},
                        {"events", 3}});
    }
    sim_ = testing::StartInfraiSim(json{{"groups", groups}}, "ifr_pk_proj_group_silence_0123456");
    ASSERT_TRUE(sim_);
    SetEnv("HOOK_SECRET", kHookSecret);
    std::ofstream(config_)
        << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
        << testing::kInfraiSection
        << "defaults: {healthy_polls_to_close: 1, cooldown: 1h, channels: [hook]}\n"
        << "conditions:\n"
        << "  - {name: agent-errors, type: error_groups, interval: 1s}\n"
        << "channels:\n"
        << "  - name: hook\n    type: webhook\n    url: \"" << hook_.Url() << "\"\n"
        << "    secret_env: HOOK_SECRET\n"
        << "    group_by: [condition]\n    group_wait: 1s\n    group_interval: 2s\n"
        << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
        << "log: {format: json, level: info}\n"
        << "http: {listen: \"127.0.0.1:0\", open_reads: true}\n";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  // The delivered group messages, in the order they arrived (one per idempotency key).
  std::vector<json> Messages() const {
    std::vector<json> out;
    std::vector<std::string> seen;
    for (const auto& request : hook_.Requests()) {
      if (!request.authorized || request.idempotency_key.empty()) continue;
      if (std::find(seen.begin(), seen.end(), request.idempotency_key) != seen.end()) continue;
      seen.push_back(request.idempotency_key);
      out.push_back(json::parse(request.body));
    }
    return out;
  }

  void Recover(const std::vector<std::string>& tenants) {
    const std::lock_guard lock(sim_->state().mu);
    for (const std::string& tenant : tenants) {
      ASSERT_TRUE(
          sim::ApplyAction(sim_->state(), json{{"op", "resolve"}, {"group", "grp_" + tenant}})
              .ok());
    }
  }

  // What the API says is open now: `total` of GET /v1/incidents?status=open.
  int OpenInTheStore(int port) const {
    std::string body;
    EXPECT_EQ(testing::HttpGet(port, "/v1/incidents?status=open&limit=100", &body), 200) << body;
    const json answer = json::parse(body, nullptr, /*allow_exceptions=*/false);
    return answer.is_object() && answer.contains("total") ? answer["total"].get<int>() : -1;
  }

  static int StandingTotal(const json& message) {
    const json& standing = message["group"]["standing"];
    if (!standing.is_object()) return -1;
    return standing["open"].get<int>() + standing["silenced"].get<int>();
  }

  testing::WebhookReceiver hook_{kHookSecret};
  testing::ScratchDir dir_{"quell-group-silence"};
  std::filesystem::path config_ = dir_ / "quell.yaml";
  std::unique_ptr<sim::SimServer> sim_;
};

TEST_F(RunGroupSilenceTest, GroupCountsAgreeWithTheStoreAndSilencedRecoveriesAreTold) {
  testing::QuellRun run(config_, dir_ / "run.log");
  const int port = run.WaitListening();
  ASSERT_GT(port, 0) << run.Log();
  ASSERT_TRUE(WaitFor([&] { return Messages().size() >= 1; }, seconds(30))) << run.Log();
  {
    const json first = Messages()[0];
    EXPECT_EQ(first["group"]["counts"]["open"], 8);
    EXPECT_EQ(StandingTotal(first), 8) << first["group"].dump();
  }

  // An operator silences five of them, then two unsilenced tenants recover.
  const testing::ProcessResult silenced =
      testing::RunProcess({testing::QuellBinary(), "silence", "add", "s*", "--for", "1h",
                           "--reason", "on it", "-c", config_.string()});
  ASSERT_EQ(silenced.exit_code, 0) << silenced.err;
  Recover({"a0", "a1"});
  ASSERT_TRUE(WaitFor([&] { return Messages().size() >= 2; }, seconds(30))) << run.Log();
  {
    const json second = Messages()[1];
    EXPECT_EQ(second["transition"], "resolve");
    EXPECT_EQ(second["group"]["counts"]["resolve"], 2);
    EXPECT_EQ(second["group"]["standing"], (json{{"open", 1}, {"silenced", 5}}))
        << second["group"].dump();
    EXPECT_EQ(StandingTotal(second), OpenInTheStore(port));
    EXPECT_NE(second["message"]["subject"].get<std::string>().find(
                  "2 resolved; 1 still open, 5 silenced"),
              std::string::npos)
        << second["message"]["subject"];
  }

  // Everything recovers, the silenced tenants too: their recoveries are a follow-up, and the
  // last message says what the store says, nothing open.
  Recover({"a2", "s0", "s1", "s2", "s3", "s4"});
  ASSERT_TRUE(WaitFor([&] { return Messages().size() >= 3; }, seconds(30))) << run.Log();
  ASSERT_TRUE(WaitFor([&] { return OpenInTheStore(port) == 0; }, seconds(30)));
  const size_t cycles = run.Events("poll.cycle_end").size();
  ASSERT_TRUE(
      WaitFor([&] { return run.Events("poll.cycle_end").size() >= cycles + 3; }, seconds(20)));
  EXPECT_EQ(run.Signal(SIGTERM), 0) << run.Log();
  const std::vector<json> messages = Messages();
  ASSERT_EQ(messages.size(), 3U);
  const json& last = messages[2];
  EXPECT_EQ(last["group"]["counts"]["resolve"], 6) << last["group"].dump();
  EXPECT_EQ(last["group"]["standing"], (json{{"open", 0}, {"silenced", 0}}));
  EXPECT_EQ(last["group"]["open_after"], 0);
  EXPECT_NE(last["message"]["subject"].get<std::string>().find("6 resolved; all resolved"),
            std::string::npos)
      << last["message"]["subject"];
}

}  // namespace run_group_silence_e2e_test
}  // namespace quell
