// Escalation tiers through `quell run`: quell-sim in process, the daemon as a child process on a
// real SQLite file, a loopback chat webhook (tier 1, at once) and a PagerDuty Events API stand-in
// (tier 2, after 2s). Unacknowledged, the pager is paged and hears the resolve; acknowledged
// from the command line before the delay, the pager hears nothing at all.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "pagerduty_receiver.h"
#include "quell/sim/scenario.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"
#include "webhook_receiver.h"

namespace quell {
namespace run_escalation_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kHookSecret = "whsec-escalation-e2e-3a7c";
constexpr const char* kPdKey = "R0UT1NGKEYESCALATIONE2E000000000";

class RunEscalationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = testing::StartInfraiSim(json{{"groups", json::array({{{"id", "grp_1"},
                                                                 {"title", "Checkout failed"},
                                                                 {"tags", {{"tenant", "t1"}}},
                                                                 {"events", 3}}})}},
                                   "ifr_pk_proj_escalate_0123456789ab");
    ASSERT_TRUE(sim_);
    SetEnv("HOOK_SECRET", kHookSecret);
    SetEnv("PD_KEY", kPdKey);
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  void WriteConfig() {
    std::ofstream(config_) << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
                           << testing::kInfraiSection
                           << "defaults:\n  healthy_polls_to_close: 1\n  cooldown: 1h\n"
                           << "  escalation:\n    - {after: 0s, channels: [chat]}\n"
                           << "    - {after: 2s, channels: [pager]}\n"
                           << "conditions:\n"
                           << "  - {name: checkout-errors, type: error_groups, interval: 1s}\n"
                           << "channels:\n"
                           << "  - name: chat\n    type: webhook\n    url: \"" << hook_.Url()
                           << "\"\n"
                           << "    secret_env: HOOK_SECRET\n"
                           << "  - name: pager\n    type: pagerduty\n    url: \""
                           << pagerduty_.BaseUrl() << "\"\n"
                           << "    routing_key_env: PD_KEY\n"
                           << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
                           << "log: {format: json, level: info}\n"
                           << "http: {listen: \"127.0.0.1:0\"}\n";
  }

  // The chat's delivered transitions, in order.
  std::vector<json> Chat() const {
    std::vector<json> out;
    for (const auto& request : hook_.Requests()) {
      if (request.authorized) out.push_back(json::parse(request.body));
    }
    return out;
  }
  void ResolveUpstream() {
    const std::lock_guard lock(sim_->state().mu);
    ASSERT_TRUE(sim::ApplyAction(sim_->state(), json{{"op", "resolve"}, {"group", "grp_1"}}).ok());
  }
  size_t Cycles() const { return testing::Events(log_, "poll.cycle_end").size(); }

  testing::WebhookReceiver hook_{kHookSecret};
  testing::PagerDutyReceiver pagerduty_{kPdKey};
  testing::ScratchDir dir_{"quell-escalation"};
  std::string config_;
  std::filesystem::path log_;
  std::unique_ptr<sim::SimServer> sim_;
};

TEST_F(RunEscalationTest, AnUnacknowledgedOpenPagesTheSecondTierThenBothHearTheResolve) {
  WriteConfig();
  testing::QuellRun run(config_, log_);
  ASSERT_TRUE(run.running());
  ASSERT_TRUE(WaitFor([&] { return pagerduty_.Events().size() >= 1; }, seconds(30)))
      << testing::ReadFile(log_);
  ASSERT_EQ(Chat().size(), 1U);
  EXPECT_EQ(Chat()[0]["transition"], "open");
  EXPECT_EQ(pagerduty_.Events()[0].event_action, "trigger");
  ResolveUpstream();
  ASSERT_TRUE(
      WaitFor([&] { return pagerduty_.Events().size() >= 2 && Chat().size() >= 2; }, seconds(30)))
      << testing::ReadFile(log_);
  EXPECT_EQ(run.Signal(SIGTERM), 0) << testing::ReadFile(log_);
  EXPECT_EQ(Chat()[1]["transition"], "resolve");
  EXPECT_EQ(pagerduty_.Events()[1].event_action, "resolve");
}

TEST_F(RunEscalationTest, AnAckBeforeTheDelayLeavesThePagerSilentThroughTheResolve) {
  WriteConfig();
  testing::QuellRun run(config_, log_);
  ASSERT_TRUE(run.running());
  ASSERT_TRUE(WaitFor([&] { return !Chat().empty(); }, seconds(30))) << testing::ReadFile(log_);
  const std::string key = Chat()[0]["key"];
  const testing::ProcessResult acked = testing::RunProcess(
      {testing::QuellBinary(), "incidents", "ack", key, "--by", "ana", "-c", config_});
  ASSERT_EQ(acked.exit_code, 0) << acked.err;
  // Well past the pager's delay (1s polls), then the recovery.
  const size_t cycles = Cycles();
  ASSERT_TRUE(WaitFor([&] { return Cycles() >= cycles + 5; }, seconds(30)));
  ResolveUpstream();
  ASSERT_TRUE(WaitFor([&] { return Chat().size() >= 2; }, seconds(30))) << testing::ReadFile(log_);
  const size_t after = Cycles();
  ASSERT_TRUE(WaitFor([&] { return Cycles() >= after + 2; }, seconds(30)));
  EXPECT_EQ(run.Signal(SIGTERM), 0) << testing::ReadFile(log_);
  EXPECT_EQ(Chat()[1]["transition"], "resolve");
  EXPECT_TRUE(pagerduty_.Events().empty()) << testing::ReadFile(log_);
}

// A later tier on a grouped channel: one message for the outage's three keys when the tier is
// due, not one per key; an ungrouped channel of the same tier says how long each key has been
// failing when it is sent (the tier's delay at least), not when its open was written (0s).
TEST_F(RunEscalationTest, AGroupedTierPagesOnceAndEveryPageCountsToItsSendTime) {
  {
    json groups = json::array();
    for (int i = 1; i <= 3; ++i) {
      groups.push_back({{"id", "grp_" + std::to_string(i)},
                        {"title", "Checkout failed"},
                        {"tags", {{"tenant", "t" + std::to_string(i)}}},
                        {"events", 3}});
    }
    const std::lock_guard lock(sim_->state().mu);
    ASSERT_TRUE(sim::LoadScenario(sim_->state(), json{{"groups", groups}}).ok());
  }
  testing::WebhookReceiver pager(kHookSecret);
  testing::WebhookReceiver page(kHookSecret);
  std::ofstream(config_)
      << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
      << testing::kInfraiSection << "defaults:\n  healthy_polls_to_close: 1\n  cooldown: 1h\n"
      << "  escalation:\n    - {after: 0s, channels: [chat]}\n"
      << "    - {after: 2s, channels: [pager, page]}\n"
      << "conditions:\n"
      << "  - {name: checkout-errors, type: error_groups, interval: 1s}\n"
      << "channels:\n"
      << "  - {name: chat, type: webhook, url: \"" << hook_.Url()
      << "\", secret_env: HOOK_SECRET}\n"
      << "  - {name: page, type: webhook, url: \"" << page.Url() << "\", secret_env: HOOK_SECRET}\n"
      << "  - name: pager\n    type: webhook\n    url: \"" << pager.Url() << "\"\n"
      << "    secret_env: HOOK_SECRET\n"
      << "    group_by: [condition]\n    group_wait: 1s\n    group_interval: 1m\n"
      << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
      << "log: {format: json, level: info}\n"
      << "http: {listen: \"127.0.0.1:0\"}\n";
  testing::QuellRun run(config_, log_);
  ASSERT_TRUE(run.running());
  ASSERT_TRUE(WaitFor([&] { return page.DeliveredKeys().size() >= 3 && !pager.Requests().empty(); },
                      seconds(30)))
      << testing::ReadFile(log_);
  const size_t cycles = Cycles();
  ASSERT_TRUE(WaitFor([&] { return Cycles() >= cycles + 3; }, seconds(30)));
  EXPECT_EQ(run.Signal(SIGTERM), 0) << testing::ReadFile(log_);
  EXPECT_EQ(hook_.DeliveredKeys().size(), 3U);
  ASSERT_EQ(pager.DeliveredKeys().size(), 1U);
  const json grouped = json::parse(pager.Requests()[0].body);
  EXPECT_EQ(grouped["kind"], "group");
  EXPECT_EQ(grouped["members"].size(), 3U);
  for (const auto& request : page.Requests()) {
    const json body = json::parse(request.body);
    const std::string text = body["message"]["body"];
    const size_t at = text.find(" for ", text.find("failing since"));
    ASSERT_NE(at, std::string::npos) << text;
    EXPECT_GE(std::stoi(text.substr(at + 5)), 2) << text;  // "for 2s", never "for 0s"
  }
}

}  // namespace run_escalation_e2e_test
}  // namespace quell
