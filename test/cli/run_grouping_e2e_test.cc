// Grouped notifications through `quell run`: quell-sim in process with 200 tenants failing at
// once, the daemon as a child process on a real SQLite file, a loopback webhook receiver.
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
#include <sstream>
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
namespace {

using nlohmann::json;
using std::chrono::seconds;
using testing::Fault;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kApiKey = "ifr_pk_proj_group_0123456789abcdef";
constexpr const char* kHookSecret = "whsec-group-5c1d-77ae02";
constexpr int kTenants = 200;

std::string KeyOf(int i) { return "t" + std::to_string(i) + ":checkout:grp_" + std::to_string(i); }

class RunGroupingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    json groups = json::array();
    for (int i = 0; i < kTenants; ++i) {
      groups.push_back(
          {{"id", "grp_" + std::to_string(i)},
           {"title", "Model answer failed"},
           {"tags", {{"tenant", "t" + std::to_string(i)}, {"agent_stage", "checkout"}}},
           {"events", 3}});
    }
    sim_ = testing::StartInfraiSim(json{{"groups", groups}}, kApiKey);
    ASSERT_TRUE(sim_);
    SetEnv("HOOK_SECRET", kHookSecret);
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  // One error-group condition, every transition to one webhook that groups by condition.
  void WriteConfig(const testing::WebhookReceiver& hook,
                   const std::string& grouping =
                       "    group_by: [condition]\n    group_wait: 2s\n    group_interval: 1m\n",
                   const std::string& defaults = "", const std::string& timeout = "10s") {
    std::ofstream(config_) << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
                           << testing::kInfraiSection << "defaults: {" << defaults
                           << "healthy_polls_to_close: 1, channels: [hook]}\n"
                           << "conditions:\n"
                           << "  - {name: agent-errors, type: error_groups, interval: 1s}\n"
                           << "channels:\n"
                           << "  - name: hook\n    type: webhook\n    url: \"" << hook.Url()
                           << "\"\n"
                           << "    secret_env: HOOK_SECRET\n    timeout: " << timeout << "\n"
                           << grouping << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
                           << "log: {format: json, level: info}\n"
                           << "http: {listen: \"127.0.0.1:0\"}\n";
  }

  std::unique_ptr<testing::QuellRun> StartRun() {
    return std::make_unique<testing::QuellRun>(config_, log_);
  }

  // The accepted requests' bodies, one per idempotency key (what the receiver delivered).
  static std::map<std::string, json> Delivered(const testing::WebhookReceiver& hook) {
    std::map<std::string, json> out;
    for (const auto& request : hook.Requests()) {
      if (!request.authorized || request.idempotency_key.empty()) continue;
      out.emplace(request.idempotency_key, json::parse(request.body));
    }
    return out;
  }

  // How many times each member key was delivered, over every distinct group message.
  static std::map<std::string, int> MemberCounts(const std::map<std::string, json>& delivered) {
    std::map<std::string, int> counts;
    for (const auto& [id, body] : delivered) {
      if (body["kind"] != "group") continue;  // a single transition's message
      EXPECT_EQ(body["group"]["members_more"], 0) << "the webhook lists every member";
      for (const json& member : body["members"]) {
        ++counts[member["key"].get<std::string>()];
      }
    }
    return counts;
  }

  testing::ScratchDir dir_{"quell-group"};
  std::string config_;
  std::filesystem::path log_;
  std::unique_ptr<sim::SimServer> sim_;
};

TEST_F(RunGroupingTest, TwoHundredTenantsFailingAtOnceGiveOneOpenMessageNamingEveryKey) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook);
  auto run = StartRun();
  ASSERT_TRUE(run->running());
  ASSERT_TRUE(WaitFor([&] { return !hook.DeliveredKeys().empty(); }, seconds(30)))
      << testing::ReadFile(log_);
  // A few more poll cycles: nothing new fails, so nothing more is sent.
  ASSERT_TRUE(
      WaitFor([&] { return testing::Events(log_, "poll.cycle_end").size() >= 4; }, seconds(20)));
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log_);
  EXPECT_EQ(hook.DeliveredKeys().size(), 1U);

  const auto delivered = Delivered(hook);
  ASSERT_EQ(delivered.size(), 1U);
  const json& body = delivered.begin()->second;
  EXPECT_EQ(body["key"], "{group}:condition=agent-errors");
  EXPECT_EQ(body["transition"], "open");
  const json& group = body["group"];
  EXPECT_EQ(group["counts"]["open"], kTenants);
  EXPECT_EQ(group["open_after"], kTenants);
  const auto counts = MemberCounts(delivered);
  ASSERT_EQ(counts.size(), static_cast<size_t>(kTenants));
  for (int i = 0; i < kTenants; ++i) EXPECT_EQ(counts.count(KeyOf(i)), 1U) << KeyOf(i);
  EXPECT_NE(body["message"]["subject"].get<std::string>().find("200 opened"), std::string::npos);
}

// The outage through `quell run`: 200 tenants open together, renotify together after
// their cooldown, then recover upstream. Three group messages in all, each naming every key
// once. The receiver accepts the first and never answers: quell's attempt times out and the
// retry carries the same idempotency key, so the receiver keeps one.
TEST_F(RunGroupingTest, TheWholeOutageIsThreeMessagesEachNamingEveryKeyOnce) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook, "    group_by: [condition]\n    group_wait: 2s\n    group_interval: 2s\n",
              "cooldown: 6s, ", "2s");
  hook.FailNext(Fault::kHang);
  auto run = StartRun();
  ASSERT_TRUE(run->running());
  ASSERT_TRUE(WaitFor([&] { return hook.Requests().size() >= 2; }, seconds(30)))
      << testing::ReadFile(log_);
  hook.ReleaseHung();
  ASSERT_TRUE(WaitFor([&] { return hook.DeliveredKeys().size() >= 2; }, seconds(30)))
      << testing::ReadFile(log_);
  {
    const std::lock_guard lock(sim_->state().mu);
    for (int i = 0; i < kTenants; ++i) {
      ASSERT_TRUE(sim::ApplyAction(sim_->state(),
                                   json{{"op", "resolve"}, {"group", "grp_" + std::to_string(i)}})
                      .ok());
    }
  }
  ASSERT_TRUE(WaitFor([&] { return hook.DeliveredKeys().size() >= 3; }, seconds(30)))
      << testing::ReadFile(log_);
  // A few more cycles: every key is resolved, so nothing more goes out.
  const size_t cycles = testing::Events(log_, "poll.cycle_end").size();
  ASSERT_TRUE(WaitFor([&] { return testing::Events(log_, "poll.cycle_end").size() >= cycles + 3; },
                      seconds(20)));
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log_);

  const auto requests = hook.Requests();
  EXPECT_EQ(requests[1].idempotency_key, requests[0].idempotency_key) << "the retry's key";
  const auto delivered = Delivered(hook);
  ASSERT_EQ(delivered.size(), 3U);
  std::map<std::string, int> steps;
  for (const auto& [id, body] : delivered) {
    ASSERT_EQ(body["kind"], "group");
    const std::string step = body["transition"];
    ++steps[step];
    EXPECT_EQ(body["group"]["counts"]["members"], kTenants) << step;
    EXPECT_EQ(body["group"]["counts"][step], kTenants) << step;
    EXPECT_EQ(body["group"]["open_after"], step == "resolve" ? 0 : kTenants) << step;
    std::set<std::string> keys;
    for (const json& member : body["members"]) keys.insert(member["key"].get<std::string>());
    EXPECT_EQ(keys.size(), static_cast<size_t>(kTenants)) << step;
  }
  EXPECT_EQ(steps, (std::map<std::string, int>{{"open", 1}, {"renotify", 1}, {"resolve", 1}}));
}

TEST_F(RunGroupingTest, AKillBetweenAssemblyAndSendResendsTheSameMessageAfterARestart) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook);
  hook.FailNext(Fault::kHang);  // the group message is delivered, then never answered
  auto run = StartRun();
  ASSERT_TRUE(run->running());
  ASSERT_TRUE(WaitFor([&] { return !hook.Requests().empty(); }, seconds(30)))
      << testing::ReadFile(log_);
  const int status = run->Signal(SIGKILL);
  EXPECT_TRUE(WIFSIGNALED(status)) << status;
  hook.ReleaseHung();

  run = StartRun();
  ASSERT_TRUE(run->running());
  // The lease (2s) runs out and the restarted daemon sends the same row again.
  ASSERT_TRUE(WaitFor([&] { return hook.Requests().size() >= 2; }, seconds(30)))
      << testing::ReadFile(log_);
  ASSERT_TRUE(
      WaitFor([&] { return testing::Events(log_, "poll.cycle_end").size() >= 3; }, seconds(20)));
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log_);

  const auto requests = hook.Requests();
  EXPECT_EQ(requests[1].idempotency_key, requests[0].idempotency_key);
  EXPECT_EQ(hook.DeliveredKeys().size(), 1U);  // exactly once in effect
  const auto counts = MemberCounts(Delivered(hook));
  ASSERT_EQ(counts.size(), static_cast<size_t>(kTenants));
  for (const auto& [key, n] : counts) EXPECT_EQ(n, 1) << key;
}

// group_wait 0s: the dispatcher assembles the group right after the poll that wrote its
// members commits, so a kill right after that poll lands around the assembly. Whatever it cut
// (the assembly's transaction, the send, the recording of its outcome), the restarted daemon
// ends with every member delivered once, in one message.
TEST_F(RunGroupingTest, KillsAroundTheAssemblyNeverLoseOrRepeatAMember) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook, "    group_by: [condition]\n    group_wait: 0s\n    group_interval: 1m\n");
  for (int round = 0; round < 4; ++round) {
    const auto log = dir_ / ("killed-" + std::to_string(round) + ".log");
    testing::QuellRun run(config_, log);
    ASSERT_TRUE(run.running());
    ASSERT_TRUE(
        WaitFor([&] { return !testing::Events(log, "poll.cycle_end").empty(); }, seconds(30)))
        << testing::ReadFile(log);
    EXPECT_TRUE(WIFSIGNALED(run.Signal(SIGKILL)));
  }
  auto run = StartRun();
  ASSERT_TRUE(WaitFor([&] { return !hook.DeliveredKeys().empty(); }, seconds(30)))
      << testing::ReadFile(log_);
  // The lease of a send cut by a kill (2s) runs out well within these cycles.
  ASSERT_TRUE(
      WaitFor([&] { return testing::Events(log_, "poll.cycle_end").size() >= 6; }, seconds(30)));
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log_);
  EXPECT_EQ(hook.DeliveredKeys().size(), 1U);
  const auto counts = MemberCounts(Delivered(hook));
  ASSERT_EQ(counts.size(), static_cast<size_t>(kTenants));
  for (const auto& [key, n] : counts) EXPECT_EQ(n, 1) << key;
}

TEST_F(RunGroupingTest, AReloadChangingGroupingAppliesWholeOrNotAtAll) {
  const json solo = {{"id", "grp_solo"},
                     {"title", "Refund failed"},
                     {"tags", {{"tenant", "solo"}, {"agent_stage", "refund"}}},
                     {"events", 1}};
  {
    const std::lock_guard lock(sim_->state().mu);
    ASSERT_TRUE(sim::LoadScenario(sim_->state(), json{{"groups", json::array()}}).ok());
  }
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook, "");
  auto run = StartRun();
  ASSERT_TRUE(
      WaitFor([&] { return !testing::Events(log_, "poll.cycle_end").empty(); }, seconds(20)));

  // group_by must be a list: the reload is refused at its line and grouping stays off.
  WriteConfig(hook, "    group_by: condition\n");
  run->Send(SIGHUP);
  ASSERT_TRUE(WaitFor([&] { return !testing::Events(log_, "config.reload_rejected").empty(); },
                      seconds(10)))
      << testing::ReadFile(log_);
  EXPECT_NE(testing::Events(log_, "config.reload_rejected")[0]["error"].get<std::string>().find(
                config_ + ":14:15: channels[0].group_by"),
            std::string::npos);
  {
    const std::lock_guard lock(sim_->state().mu);
    ASSERT_TRUE(sim::LoadScenario(sim_->state(), json{{"groups", json::array({solo})}}).ok());
  }
  ASSERT_TRUE(WaitFor([&] { return hook.DeliveredKeys().size() == 1; }, seconds(20)));
  EXPECT_EQ(Delivered(hook).begin()->second["key"], "solo:refund:grp_solo");  // one transition

  // A valid grouping applies: the 200 tenants that fail next arrive as one group message.
  WriteConfig(hook);
  run->Send(SIGHUP);
  ASSERT_TRUE(
      WaitFor([&] { return !testing::Events(log_, "config.reloaded").empty(); }, seconds(10)))
      << testing::ReadFile(log_);
  {
    const std::lock_guard lock(sim_->state().mu);
    json groups = json::array({solo});
    for (int i = 0; i < kTenants; ++i) {
      groups.push_back(
          {{"id", "grp_" + std::to_string(i)},
           {"title", "Model answer failed"},
           {"tags", {{"tenant", "t" + std::to_string(i)}, {"agent_stage", "checkout"}}},
           {"events", 3}});
    }
    ASSERT_TRUE(sim::LoadScenario(sim_->state(), json{{"groups", groups}}).ok());
  }
  ASSERT_TRUE(WaitFor([&] { return hook.DeliveredKeys().size() == 2; }, seconds(30)))
      << testing::ReadFile(log_);
  ASSERT_TRUE(
      WaitFor([&] { return testing::Events(log_, "poll.cycle_end").size() >= 8; }, seconds(20)));
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log_);
  EXPECT_EQ(hook.DeliveredKeys().size(), 2U);
  const auto counts = MemberCounts(Delivered(hook));
  EXPECT_EQ(counts.size(), static_cast<size_t>(kTenants));
}

}  // namespace
}  // namespace quell
