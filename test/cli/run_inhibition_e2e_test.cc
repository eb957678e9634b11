// Inhibition through `quell run`: quell-sim in process, the daemon as a child process on a real
// SQLite file, a loopback webhook receiver. A tenant's provider outage holds that tenant's
// answer errors; once the provider recovers, the one still failing pages once, naming it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "quell/sim/scenario.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "run_process.h"
#include "webhook_receiver.h"

namespace quell {
namespace run_inhibition_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kApiKey = "ifr_pk_proj_inhibit_0123456789abcdef";
constexpr const char* kHookSecret = "whsec-inhibit-9a2e-41bc07";

json Group(const std::string& id, const std::string& tenant, const std::string& kind) {
  return {{"id", id},
          {"title", kind == "provider" ? "Model provider unreachable" : "Model answer failed"},
          {"tags", {{"tenant", tenant}, {"agent_stage", kind}, {"kind", kind}}},
          {"events", 3}};
}

class RunInhibitionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = testing::StartInfraiSim(
        json{{"groups", json::array({Group("grp_provider", "acme", "provider")})}}, kApiKey);
    ASSERT_TRUE(sim_);
    SetEnv("HOOK_SECRET", kHookSecret);
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  void WriteConfig(const testing::WebhookReceiver& hook) {
    std::ofstream(config_)
        << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
        << testing::kInfraiSection
        << "defaults: {healthy_polls_to_close: 1, cooldown: 1h, channels: [hook]}\n"
        << "conditions:\n"
        << "  - name: provider-down\n    type: error_groups\n    interval: 1s\n"
        << "    tags: {kind: provider}\n    key: \"{tags.tenant}:provider\"\n"
        << "  - name: answers\n    type: error_groups\n    interval: 1s\n"
        << "    tags: {kind: answer}\n    key: \"{tags.tenant}:answers:{error_group_id}\"\n"
        << "    inhibited_by: [{condition: provider-down, equal: [tenant]}]\n"
        << "channels:\n"
        << "  - name: hook\n    type: webhook\n    url: \"" << hook.Url() << "\"\n"
        << "    secret_env: HOOK_SECRET\n"
        << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
        << "log: {format: json, level: info}\n"
        << "http: {listen: \"127.0.0.1:0\"}\n";
  }

  // The delivered messages' bodies, by incident key and transition.
  static std::map<std::string, json> Delivered(const testing::WebhookReceiver& hook) {
    std::map<std::string, json> out;
    for (const auto& request : hook.Requests()) {
      if (!request.authorized || request.idempotency_key.empty()) continue;
      const json body = json::parse(request.body);
      out.emplace(body["key"].get<std::string>() + " " + body["transition"].get<std::string>(),
                  body);
    }
    return out;
  }

  void Sim(const json& action) {
    const std::lock_guard lock(sim_->state().mu);
    ASSERT_TRUE(sim::ApplyAction(sim_->state(), action).ok()) << action.dump();
  }

  size_t Cycles() const { return testing::Events(log_, "poll.cycle_end").size(); }

  testing::ScratchDir dir_{"quell-inhibit"};
  std::string config_;
  std::filesystem::path log_;
  std::unique_ptr<sim::SimServer> sim_;
};

TEST_F(RunInhibitionTest, AProviderOutageHoldsItsTenantsAnswersUntilItRecovers) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook);
  auto run = std::make_unique<testing::QuellRun>(config_, log_);
  ASSERT_TRUE(run->running());
  ASSERT_TRUE(WaitFor([&] { return Delivered(hook).contains("acme:provider open"); }, seconds(30)))
      << testing::ReadFile(log_);

  // The provider is down for acme: acme's answers fail too, globex's fail on their own.
  Sim({{"op", "open"}, {"group", Group("grp_acme", "acme", "answer")}});
  Sim({{"op", "open"}, {"group", Group("grp_globex", "globex", "answer")}});
  ASSERT_TRUE(WaitFor([&] { return Delivered(hook).contains("globex:answers:grp_globex open"); },
                      seconds(30)))
      << testing::ReadFile(log_);
  const size_t held_from = Cycles();
  ASSERT_TRUE(WaitFor([&] { return Cycles() >= held_from + 3; }, seconds(20)));
  EXPECT_FALSE(Delivered(hook).contains("acme:answers:grp_acme open"))
      << "held behind the provider";

  Sim({{"op", "resolve"}, {"group", "grp_provider"}});
  ASSERT_TRUE(
      WaitFor([&] { return Delivered(hook).contains("acme:answers:grp_acme open"); }, seconds(30)))
      << testing::ReadFile(log_);
  const size_t released_at = Cycles();
  ASSERT_TRUE(WaitFor([&] { return Cycles() >= released_at + 3; }, seconds(20)));
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log_);

  const auto delivered = Delivered(hook);
  EXPECT_TRUE(delivered.contains("acme:provider resolve"));
  const json& released = delivered.at("acme:answers:grp_acme open");
  const std::string subject = released["message"]["subject"];
  EXPECT_NE(subject.find("held behind acme:provider for "), std::string::npos) << subject;
  // Once: every accepted request for it carried the same idempotency key.
  std::set<std::string> ids;
  for (const auto& request : hook.Requests()) {
    if (request.authorized && request.body.find("\"acme:answers:grp_acme\"") != std::string::npos) {
      ids.insert(request.idempotency_key);
    }
  }
  EXPECT_EQ(ids.size(), 1U);
  EXPECT_EQ(delivered.size(), 4U);  // provider open and resolve, globex's open, acme's held open
}

}  // namespace run_inhibition_e2e_test
}  // namespace quell
