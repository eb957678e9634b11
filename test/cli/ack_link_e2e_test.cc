// Signed ack links through `quell run`: quell-sim in process with one failing group, the daemon
// as a child process on a real SQLite file, a loopback webhook receiver; the link in a
// delivered message, POSTed to the daemon's own HTTP port, acks the incident and its
// renotifies stop.
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
#include "quell/core/text/request_target.h"
#include "quell/sim/scenario.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "run_process.h"
#include "webhook_receiver.h"

namespace quell {
namespace ack_link_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kHookSecret = "whsec-ack-link-e2e-91f0";
constexpr const char* kAckSecret = "ack-link-secret-e2e-5e1b7c0d";

class AckLinkRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = testing::StartInfraiSim(json{{"groups", json::array({{{"id", "grp_1"},
                                                                 {"title", "Model answer failed"},
                                                                 {"tags", {{"tenant", "t1"}}},
                                                                 {"events", 3}}})}},
                                   "ifr_pk_proj_ack_0123456789abcdef");
    ASSERT_TRUE(sim_);
    SetEnv("HOOK_SECRET", kHookSecret);
    SetEnv("ACK_SECRET", kAckSecret);
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  void WriteConfig(const testing::WebhookReceiver& hook) {
    std::ofstream(config_)
        << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
        << testing::kInfraiSection << "defaults: {cooldown: 2s, channels: [hook]}\n"
        << "conditions:\n"
        << "  - {name: agent-errors, type: error_groups, interval: 1s}\n"
        << "channels:\n"
        << "  - name: hook\n    type: webhook\n    url: \"" << hook.Url() << "\"\n"
        << "    secret_env: HOOK_SECRET\n"
        << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
        << "log: {format: json, level: info}\n"
        << "http:\n  listen: \"127.0.0.1:0\"\n  public_url: https://quell.example.test\n"
        << "  ack_link_secret_env: ACK_SECRET\n";
  }

  // The delivered messages' bodies, in the order they were accepted.
  static std::vector<json> Delivered(const testing::WebhookReceiver& hook) {
    std::vector<json> out;
    for (const auto& request : hook.Requests()) {
      if (request.authorized) out.push_back(json::parse(request.body));
    }
    return out;
  }

  // The path of the ack link in the first delivered message (the open's).
  static std::string AckPath(const testing::WebhookReceiver& hook) {
    const std::string text = Delivered(hook)[0]["message"]["body"].get<std::string>();
    const std::string base = "https://quell.example.test/v1/ack/";
    const size_t at = text.find(base);
    if (at == std::string::npos) return "";
    size_t end = at + base.size();
    while (end < text.size() && text[end] != ' ' && text[end] != '\n') ++end;
    while (text[end - 1] == '.') --end;  // the sentence's full stop after the link
    return text.substr(at + base.size() - 8, end - at - base.size() + 8);
  }

  testing::ScratchDir dir_{"quell-ack-link-e2e"};
  std::string config_;
  std::filesystem::path log_;
  std::unique_ptr<sim::SimServer> sim_;
};

TEST_F(AckLinkRunTest, TheLinkInAMessageAcksTheIncidentAndStopsItsRenotifies) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook);
  auto run = std::make_unique<testing::QuellRun>(config_, log_);
  ASSERT_TRUE(run->running());
  // The open, then a renotify after the cooldown: unacknowledged, it keeps reminding.
  ASSERT_TRUE(WaitFor([&] { return Delivered(hook).size() >= 2; }, seconds(30)))
      << testing::ReadFile(log_);
  const json open = Delivered(hook)[0];
  ASSERT_EQ(open["transition"], "open");
  const std::string text = open["message"]["body"].get<std::string>();
  const std::string base = "https://quell.example.test/v1/ack/";
  const size_t at = text.find(base);
  ASSERT_NE(at, std::string::npos) << text;
  size_t end = at + base.size();
  while (end < text.size() && text[end] != ' ' && text[end] != '\n') ++end;
  while (text[end - 1] == '.') --end;  // the sentence's full stop after the link
  const std::string path = text.substr(at + base.size() - 8, end - at - base.size() + 8);
  const int port = run->WaitListening();
  ASSERT_GT(port, 0) << run->Log();

  // GET (what a chat client's link preview does) acks nothing; POST acks.
  std::string page;
  ASSERT_EQ(testing::HttpGet(port, path, &page), 200) << path << "\n" << page;
  EXPECT_NE(page.find("<form method=\"post\">"), std::string::npos) << page;
  httplib::Client client("127.0.0.1", port);
  auto acked = client.Post(path, "", "application/x-www-form-urlencoded");
  ASSERT_TRUE(acked);
  ASSERT_EQ(acked->status, 200) << acked->body;
  EXPECT_NE(acked->body.find("is acknowledged (by link"), std::string::npos) << acked->body;

  // Several cooldowns' worth of cycles later, nothing more went out.
  const size_t sent = Delivered(hook).size();
  const size_t cycles = testing::Events(log_, "poll.cycle_end").size();
  ASSERT_TRUE(WaitFor([&] { return testing::Events(log_, "poll.cycle_end").size() >= cycles + 7; },
                      seconds(30)));
  EXPECT_EQ(Delivered(hook).size(), sent) << testing::ReadFile(log_);
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log_);
  // The log names the ack and never carries the link's mac.
  const auto lines = testing::Events(log_, "http.ack_link");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back()["status"], "acked");
  const std::string mac = path.substr(path.rfind('.') + 1);
  ASSERT_EQ(mac.size(), 32U) << path;
  EXPECT_EQ(testing::ReadFile(log_).find(mac), std::string::npos);
  EXPECT_EQ(testing::ReadFile(log_).find(kAckSecret), std::string::npos);
}

// The name field of an ack page is outsiders' bytes: one posted in Latin-1 acks as U+FFFD, and
// the answer, the log and the store hold UTF-8 (PostgreSQL refused the raw bytes: a 500).
TEST_F(AckLinkRunTest, ANameThatIsNotUtf8AcksWithReplacementCharacters) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook);
  testing::QuellRun run(config_, log_);
  const int port = run.WaitListening();
  ASSERT_GT(port, 0) << run.Log();
  ASSERT_TRUE(WaitFor([&] { return !Delivered(hook).empty(); }, seconds(30))) << run.Log();
  const std::string path = AckPath(hook);
  ASSERT_FALSE(path.empty()) << Delivered(hook)[0].dump();

  httplib::Client client("127.0.0.1", port);
  auto acked = client.Post(path, "name=Jos%E9%FF", "application/x-www-form-urlencoded");
  ASSERT_TRUE(acked);
  ASSERT_EQ(acked->status, 200) << acked->body;
  EXPECT_TRUE(core::IsUtf8(acked->body)) << acked->body;
  EXPECT_NE(acked->body.find("by link:Jos\xEF\xBF\xBD\xEF\xBF\xBD"), std::string::npos)
      << acked->body;
  EXPECT_EQ(run.Signal(SIGTERM), 0) << run.Log();
  EXPECT_TRUE(core::IsUtf8(run.Log()));
  const auto lines = testing::Events(log_, "http.ack_link");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back()["status"], "acked");
}

}  // namespace ack_link_e2e_test
}  // namespace quell
