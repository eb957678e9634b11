// A source that fails every poll speaks for itself (issue 31, item 2): `quell run` against
// quell-sim answering 401 to every request, a 1 s poll interval and a recording webhook receiver
// on loopback. The source's own incident, "source:infrai error groups", reaches the channel
// within 15 polls naming the source, its last error and the failed polls; once the fault is
// cleared its resolve arrives. And `meta_channels` naming an unknown channel is refused by both
// `quell config check` and `quell run`, with the same message.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"
#include "webhook_receiver.h"

namespace quell {
namespace run_source_health_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::Events;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kApiKey = "ifr_pk_proj_health_0123456789abcdef";
constexpr const char* kHookSecret = "whsec-health-5c2e-91d0";
constexpr const char* kSourceKey = "source:infrai error groups";

class RunSourceHealthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = testing::StartInfraiSim(json::parse(R"({"groups": []})"), kApiKey);
    ASSERT_TRUE(sim_);
    SetEnv("HOOK_SECRET", kHookSecret);
    store_ = "sqlite:" + (dir_ / "quell.db").string();
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  void WriteConfig(const std::string& hook_url, const std::string& extra = "") {
    std::ofstream(config_) << "store: " << store_ << "\n"
                           << "infrai:\n  base_url: ${INFRAI_BASE_URL}\n"
                           << "  retry: {max_attempts: 1}\n"
                           << "conditions:\n"
                           << "  - {name: agent-errors, type: error_groups, interval: 1s, "
                              "channels: [hook]}\n"
                           << "channels:\n"
                           << "  - {name: hook, type: webhook, url: \"" << hook_url
                           << "\", secret_env: HOOK_SECRET, timeout: 2s, initial_backoff: 100ms, "
                              "max_backoff: 200ms}\n"
                           << "log: {format: json, level: info}\n"
                           << "http: {listen: \"127.0.0.1:0\"}\n"
                           << extra;
  }

  void Fault401() {
    const std::lock_guard lock(sim_->state().mu);
    sim::Fault fault;
    fault.route = "*";
    fault.kind = sim::FaultKind::kStatus;
    fault.status = 401;
    fault.message = "API key expired";
    sim_->state().faults.Add(fault);
  }
  void ClearFaults() {
    const std::lock_guard lock(sim_->state().mu);
    sim_->state().faults.Clear();
  }

  // The webhook bodies the receiver accepted about `key`, in arrival order.
  static std::vector<json> BodiesAbout(const testing::WebhookReceiver& hook,
                                       const std::string& key) {
    std::vector<json> out;
    for (const auto& request : hook.Requests()) {
      if (!request.authorized || request.duplicate) continue;
      json body = json::parse(request.body, nullptr, /*allow_exceptions=*/false);
      if (body.is_object() && body.value("key", "") == key) out.push_back(std::move(body));
    }
    return out;
  }
  static std::optional<json> WithTransition(const std::vector<json>& bodies,
                                            const std::string& transition) {
    for (const json& body : bodies) {
      if (body.value("transition", "") == transition) return body;
    }
    return std::nullopt;
  }

  testing::ProcessResult Quell(std::vector<std::string> args) {
    args.insert(args.begin(), testing::QuellBinary());
    return testing::RunProcess(args);
  }

  testing::ScratchDir dir_{"quell-run-source"};
  std::string store_;
  std::string config_;
  std::filesystem::path log_;
  std::unique_ptr<sim::SimServer> sim_;
};

TEST_F(RunSourceHealthTest, InfraiAnswering401PagesTheSourceWithin15PollsAndResolvesAfter) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook.Url());
  Fault401();
  testing::QuellRun run(config_, log_);

  ASSERT_TRUE(
      WaitFor([&] { return WithTransition(BodiesAbout(hook, kSourceKey), "open").has_value(); },
              seconds(60)))
      << testing::ReadFile(log_);
  // Counted in polls, not seconds: the poll whose decision opened it is among the first 15.
  const auto starts = Events(log_, "poll.cycle_start");
  std::string opened_in;
  for (const json& decision : Events(log_, "poll.decision")) {
    if (decision.value("incident_key", "") == kSourceKey &&
        decision.value("transition", "") == "open") {
      opened_in = decision.value("poll_id", "");
    }
  }
  size_t poll = 0;
  while (poll < starts.size() && starts[poll].value("poll_id", "") != opened_in) ++poll;
  ASSERT_LT(poll, starts.size()) << "no cycle opened it: " << testing::ReadFile(log_);
  EXPECT_LT(poll, 15U) << "opened at poll " << poll + 1;
  EXPECT_EQ(poll, 2U) << "the third failed poll in a row (source_failures_to_open: 3)";

  const json open = *WithTransition(BodiesAbout(hook, kSourceKey), "open");
  const std::string text = open["message"]["body"].get<std::string>();
  EXPECT_NE(text.find("infrai error groups"), std::string::npos) << text;  // the source
  EXPECT_NE(text.find("401"), std::string::npos) << text;                  // its last error
  EXPECT_NE(text.find("failing in 3 polls"), std::string::npos) << text;   // how many
  EXPECT_EQ(open["incident"]["condition"], "source health") << open.dump();
  EXPECT_EQ(text.find(kApiKey), std::string::npos) << "the key reached a message";
  // One page for the outage, however long it lasts: two more failed polls page nobody again.
  const size_t ended = Events(log_, "poll.cycle_end").size();
  ASSERT_TRUE(
      WaitFor([&] { return Events(log_, "poll.cycle_end").size() >= ended + 2; }, seconds(30)));
  EXPECT_EQ(BodiesAbout(hook, kSourceKey).size(), 1U);

  ClearFaults();
  ASSERT_TRUE(
      WaitFor([&] { return WithTransition(BodiesAbout(hook, kSourceKey), "resolve").has_value(); },
              seconds(60)))
      << testing::ReadFile(log_);
  const json resolve = *WithTransition(BodiesAbout(hook, kSourceKey), "resolve");
  EXPECT_EQ(resolve["generation"], open["generation"]);
  EXPECT_TRUE(WIFEXITED(run.Signal(SIGTERM))) << testing::ReadFile(log_);
  EXPECT_EQ(BodiesAbout(hook, kSourceKey).size(), 2U) << "one open, one resolve";

  // The incident is an ordinary one to the operator's commands.
  const auto shown =
      Quell({"incidents", "show", kSourceKey, "--format", "jsonl", "--store", store_});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find(R"("status":"resolved")"), std::string::npos) << shown.out;
}

TEST_F(RunSourceHealthTest, AnUnknownMetaChannelIsRefusedByConfigCheckAndRunAlike) {
  WriteConfig("http://127.0.0.1:9/hook", "meta_channels: [hook, oncall]\n");
  const std::string expected = config_ +
                               ":11:16: meta_channels: names channel \"oncall\", which is not in "
                               "`channels`";
  const auto check = Quell({"config", "check", "-c", config_, "--offline"});
  EXPECT_NE(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE((check.out + check.err).find(expected), std::string::npos) << check.out << check.err;
  const auto run = Quell({"run", "-c", config_});
  EXPECT_NE(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE((run.out + run.err).find(expected), std::string::npos) << run.out << run.err;

  // Named right, both accept it.
  WriteConfig("http://127.0.0.1:9/hook", "meta_channels: [hook]\n");
  const auto fixed = Quell({"config", "check", "-c", config_, "--offline"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
}

}  // namespace run_source_health_e2e_test
}  // namespace quell
