// The daemon's reload, driven by direct calls on a fake clock: quell-sim in process, a real
// SQLite file, loopback webhook receivers. A reload is checked and built whole before anything
// switches; poller and dispatcher switch together or not at all.
#include "quell/adapters/wiring/daemon_assembly.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../app/fake_clock.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/sim/scenario.h"
#include "quell/sim/server.h"
#include "webhook_receiver.h"

namespace quell::wiring {
namespace {

using nlohmann::json;

constexpr const char* kHookSecret = "whsec-daemon-5c1d-77a0";
constexpr const char* kBotSecret = "whsec-daemon-bot-9e41";

struct Event {
  core::LogLevel level;
  std::string name;
  std::map<std::string, std::string> fields;
};

class RecordingLog : public core::EventLog {
 public:
  void Log(core::LogLevel level, std::string_view event,
           std::initializer_list<core::LogField> fields) override {
    Event e{level, std::string(event), {}};
    for (const core::LogField& f : fields) e.fields[std::string(f.name)] = std::string(f.value);
    const std::lock_guard lock(mu_);
    events_.push_back(std::move(e));
  }
  std::vector<Event> Named(const std::string& name) {
    const std::lock_guard lock(mu_);
    std::vector<Event> found;
    for (const Event& e : events_) {
      if (e.name == name) found.push_back(e);
    }
    return found;
  }

 private:
  std::mutex mu_;
  std::vector<Event> events_;
};

class DaemonReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("quell-daemon-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    sim::SimOptions options;
    options.scenario = Groups({"grp_one"});
    sim_ = std::make_unique<sim::SimServer>(std::move(options));
    auto port = sim_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    setenv("INFRAI_BASE_URL", ("http://127.0.0.1:" + std::to_string(*port)).c_str(), 1);
    setenv("INFRAI_API_KEY", "ifr_pk_proj_daemon_0123456789abcdef", 1);
    setenv("HOOK_SECRET", kHookSecret, 1);
    unsetenv("BOT_SECRET");
    config_ = (dir_ / "quell.yaml").string();
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
    std::filesystem::remove_all(dir_);
  }

  static json Groups(const std::vector<std::string>& ids) {
    json groups = json::array();
    for (const std::string& id : ids) {
      groups.push_back({{"id", id},
                        {"title", "failed " + id},
                        {"tags", {{"tenant", "acme"}, {"agent_stage", id}}},
                        {"events", 2}});
    }
    return json{{"groups", groups}};
  }
  void FailGroups(const std::vector<std::string>& ids) {
    const std::lock_guard lock(sim_->state().mu);
    ASSERT_TRUE(sim::LoadScenario(sim_->state(), Groups(ids)).ok());
  }

  // `channels` routed from the one condition; `bot` adds a second webhook whose secret is
  // BOT_SECRET (line 12 column 17 holds its secret_env variable).
  void WriteConfig(bool bot) {
    std::ofstream out(config_);
    out << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
        << "infrai: {base_url: \"${INFRAI_BASE_URL}\", retry: {max_attempts: 1}}\n"
        << "defaults: {channels: [" << (bot ? "hook, bot" : "hook") << "]}\n"
        << "conditions:\n"
        << "  - {name: agent-errors, type: error_groups, interval: 10s}\n"
        << "channels:\n"
        << "  - {name: hook, type: webhook, url: \"" << hook_.Url()
        << "\", secret_env: HOOK_SECRET}\n";
    if (bot) {
      out << "  - name: bot\n"
          << "    type: webhook\n"
          << "    url: \"" << bot_.Url() << "\"\n"
          << "    timeout: 5s\n"
          << "    secret_env: BOT_SECRET\n";
    }
  }

  std::unique_ptr<app::DaemonRuntime> Start() {
    DaemonOptions options;
    options.config_path = config_;
    options.owner = "daemon-test";
    options.jitter = 0;
    auto daemon = MakeDaemon(options, clock_, log_, control_, {});
    EXPECT_TRUE(daemon.ok()) << daemon.error().message;
    return daemon.ok() ? std::move(*daemon) : nullptr;
  }

  // The next cycle (its lease renewed first, as the keeper's thread would), then dispatch
  // rounds until nothing is claimed.
  void PollAndDeliver(app::DaemonRuntime& daemon) {
    clock_.SleepFor(std::chrono::seconds(10));
    (void)daemon.KeepLeases();
    daemon.PollDue();
    for (int round = 0; round < 5 && daemon.DispatchRound().claimed > 0; ++round) {
    }
  }

  std::vector<core::OutboxRow> Outbox() {
    auto store = sqlite::SqliteIncidentStore::Open((dir_ / "quell.db").string(), {});
    EXPECT_TRUE(store.ok());
    auto rows = (*store)->ListOutbox(std::nullopt);
    EXPECT_TRUE(rows.ok());
    return rows.ok() ? *rows : std::vector<core::OutboxRow>{};
  }

  std::filesystem::path dir_;
  std::string config_;
  std::unique_ptr<sim::SimServer> sim_;
  testing::WebhookReceiver hook_{kHookSecret};
  testing::WebhookReceiver bot_{kBotSecret};
  // From the wall's now: the receivers check the signature's timestamp against their own clock.
  testing::FakeClock clock_{
      std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now())};
  RecordingLog log_;
  app::RunControl control_;
};

TEST_F(DaemonReloadTest, AReloadAddingAChannelWithAnUnsetSecretIsRejectedAndTheOldOneDelivers) {
  WriteConfig(/*bot=*/false);
  auto daemon = Start();
  ASSERT_NE(daemon, nullptr);
  PollAndDeliver(*daemon);
  ASSERT_EQ(hook_.DeliveredKeys().size(), 1U);

  WriteConfig(/*bot=*/true);
  const core::Status reloaded = daemon->Reload();
  ASSERT_FALSE(reloaded.ok());
  EXPECT_NE(reloaded.error().message.find(config_ + ":12:17: channels[1].secret_env"),
            std::string::npos)
      << reloaded.error().message;
  const auto rejected = log_.Named("config.reload_rejected");
  ASSERT_EQ(rejected.size(), 1U);
  EXPECT_EQ(rejected[0].level, core::LogLevel::kWarn);
  EXPECT_NE(rejected[0].fields.at("error").find("BOT_SECRET"), std::string::npos);
  EXPECT_TRUE(log_.Named("config.reloaded").empty());
  EXPECT_EQ(daemon->Health().failed_reloads, 1U);

  // A second group fails: the running config routes it to `hook` alone, which delivers it.
  FailGroups({"grp_one", "grp_two"});
  PollAndDeliver(*daemon);
  EXPECT_EQ(hook_.DeliveredKeys().size(), 2U);
  EXPECT_TRUE(bot_.Requests().empty());
  for (const core::OutboxRow& row : Outbox()) {
    EXPECT_EQ(row.channel, "hook");
    EXPECT_EQ(row.status, core::OutboxStatus::kSent) << row.channel << " " << row.key;
  }
}

// The poll leases live in the store the daemon started with: polls committed in another store
// would all be fenced, so a reload keeps the store, applies the rest and says a restart moves it.
TEST_F(DaemonReloadTest, AReloadNamingAnotherStoreKeepsTheFirstAppliesTheRestAndSaysSo) {
  WriteConfig(/*bot=*/false);
  auto daemon = Start();
  ASSERT_NE(daemon, nullptr);
  PollAndDeliver(*daemon);
  ASSERT_EQ(hook_.DeliveredKeys().size(), 1U);
  setenv("BOT_SECRET", kBotSecret, 1);
  WriteConfig(/*bot=*/true);
  std::string text;
  {
    std::ifstream in(config_);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string old_store = (dir_ / "quell.db").string();
  text.replace(text.find(old_store), old_store.size(), (dir_ / "other.db").string());
  std::ofstream(config_) << text;
  const core::Status reloaded = daemon->Reload();
  ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
  const auto restart = log_.Named("config.restart_needed");
  ASSERT_EQ(restart.size(), 1U);
  EXPECT_EQ(restart[0].level, core::LogLevel::kWarn);
  EXPECT_EQ(restart[0].fields.at("settings"), "store");
  // The new channel is applied, on the first store.
  FailGroups({"grp_one", "grp_two"});
  PollAndDeliver(*daemon);
  EXPECT_EQ(hook_.DeliveredKeys().size(), 2U);
  EXPECT_EQ(bot_.DeliveredKeys().size(), 1U);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "other.db"));
}

TEST_F(DaemonReloadTest, AValidReloadSwitchesThePollerAndTheDispatcherTogether) {
  WriteConfig(/*bot=*/false);
  auto daemon = Start();
  ASSERT_NE(daemon, nullptr);
  PollAndDeliver(*daemon);
  ASSERT_EQ(hook_.DeliveredKeys().size(), 1U);

  setenv("BOT_SECRET", kBotSecret, 1);
  WriteConfig(/*bot=*/true);
  const core::Status reloaded = daemon->Reload();
  ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
  ASSERT_EQ(log_.Named("config.reloaded").size(), 1U);
  EXPECT_EQ(log_.Named("config.reloaded")[0].fields.at("channels"), "2");
  EXPECT_TRUE(log_.Named("config.restart_needed").empty()) << "channels need no restart";

  FailGroups({"grp_one", "grp_two"});
  PollAndDeliver(*daemon);
  EXPECT_EQ(hook_.DeliveredKeys().size(), 2U);
  EXPECT_EQ(bot_.DeliveredKeys().size(), 1U) << "the new channel gets the new incident";
  for (const core::OutboxRow& row : Outbox()) {
    EXPECT_EQ(row.status, core::OutboxStatus::kSent) << row.channel << " " << row.key;
  }
}

}  // namespace
}  // namespace quell::wiring
