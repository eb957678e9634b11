// A group's one ack link through `quell run` (issue 31): quell-sim in process with three failing
// error groups, the daemon as a child process on a real SQLite file, a grouped webhook channel
// and a loopback receiver. The group message carries one link instead of one per member; its
// page asks for a name; the POST acks every open member by that name, which the API, the CLI,
// the timeline and the group's JSON route then show; no reminder follows.
#include <gtest/gtest.h>
#include <httplib.h>

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
#include "quell/sim/scenario.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"
#include "webhook_receiver.h"

namespace quell {
namespace group_ack_link_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kHookSecret = "whsec-group-ack-e2e-40c2";
constexpr const char* kAckSecret = "ack-link-secret-group-e2e-77d1a9";
constexpr const char* kToken = "tok-group-ack-e2e-0123456789";
constexpr const char* kPublic = "https://quell.example.test";

class GroupAckLinkRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    json groups = json::array();
    for (const char* id : {"grp_1", "grp_2", "grp_3"}) {
      groups.push_back({{"id", id},
                        {"title", std::string("Model answer failed ") + id},
                        {"tags", {{"tenant", "t1"}}},
                        {"events", 3}});
    }
    sim_ = testing::StartInfraiSim(json{{"groups", groups}}, "ifr_pk_proj_group_ack_0123456789ab");
    ASSERT_TRUE(sim_);
    SetEnv("HOOK_SECRET", kHookSecret);
    SetEnv("ACK_SECRET", kAckSecret);
    SetEnv("QUELL_TOKEN", kToken);
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
    std::ofstream(config_)
        << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
        << testing::kInfraiSection << "defaults: {cooldown: 3s, channels: [hook]}\n"
        << "conditions:\n"
        << "  - {name: agent-errors, type: error_groups, interval: 1s}\n"
        << "channels:\n"
        << "  - name: hook\n    type: webhook\n    url: \"" << hook_.Url() << "\"\n"
        << "    secret_env: HOOK_SECRET\n"
        << "    group_by: [condition]\n    group_wait: 1s\n    group_interval: 2s\n"
        << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
        << "log: {format: json, level: info}\n"
        << "http:\n  listen: \"127.0.0.1:0\"\n  public_url: " << kPublic << "\n"
        << "  ack_link_secret_env: ACK_SECRET\n  token_env: QUELL_TOKEN\n";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  // The delivered messages' bodies, in the order they were accepted.
  std::vector<json> Delivered() const {
    std::vector<json> out;
    for (const auto& request : hook_.Requests()) {
      if (request.authorized) out.push_back(json::parse(request.body));
    }
    return out;
  }

  // GET `path` with the token; the JSON answer.
  json Read(int port, const std::string& path) {
    httplib::Client client("127.0.0.1", port);
    auto answer = client.Get(path, {{"Authorization", std::string("Bearer ") + kToken}});
    EXPECT_TRUE(answer);
    if (!answer) return json();
    EXPECT_EQ(answer->status, 200) << path << ": " << answer->body;
    return json::parse(answer->body, nullptr, false);
  }

  testing::WebhookReceiver hook_{kHookSecret};
  testing::ScratchDir dir_{"quell-group-ack-link-e2e"};
  std::string config_;
  std::filesystem::path log_;
  std::unique_ptr<sim::SimServer> sim_;
};

// Every occurrence of `needle` in `text`.
size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST_F(GroupAckLinkRunTest, OneLinkAcksEveryOpenMemberByTheNameTypedOnItsPage) {
  testing::QuellRun run(config_, log_);
  ASSERT_TRUE(run.running());
  ASSERT_TRUE(WaitFor(
      [&] {
        for (const json& m : Delivered()) {
          if (m.value("kind", "") == "group" && m["members"].size() == 3) return true;
        }
        return false;
      },
      seconds(30)))
      << testing::ReadFile(log_);
  json open;
  for (const json& m : Delivered()) {
    if (m.value("kind", "") == "group" && m["members"].size() == 3) open = m;
  }
  const std::string text = open["message"]["body"].get<std::string>();
  // One link for the group, none per member; Details opens the group's page.
  const std::string base = std::string(kPublic) + "/v1/ack/";
  EXPECT_EQ(Count(text, base), 1U) << text;
  EXPECT_NE(text.find(std::string(kPublic) + "/groups/hook/condition%3Dagent-errors"),
            std::string::npos)
      << text;
  const size_t at = text.find(base);
  ASSERT_NE(at, std::string::npos) << text;
  size_t end = at + base.size();
  while (end < text.size() && text[end] != ' ' && text[end] != '\n') ++end;
  const std::string path =
      text.substr(at + std::string(kPublic).size(), end - at - std::string(kPublic).size());
  ASSERT_EQ(path.rfind("/v1/ack/g1.", 0), 0U) << path;
  std::vector<std::string> keys;
  for (const json& member : open["members"]) keys.push_back(member["key"]);
  const int port = run.WaitListening();
  ASSERT_GT(port, 0) << run.Log();

  // The page (what a chat client's preview fetches) acks nothing and asks for a name.
  std::string page;
  ASSERT_EQ(testing::HttpGet(port, path, &page), 200) << path << "\n" << page;
  EXPECT_NE(page.find("3 incidents of group"), std::string::npos) << page;
  EXPECT_NE(page.find("name=\"name\""), std::string::npos) << page;
  for (const std::string& key : keys) {
    EXPECT_FALSE(
        Read(port, "/v1/incidents/" + key)["incident"].value("acked_at", json()).is_string())
        << key;
  }
  httplib::Client client("127.0.0.1", port);
  auto acked = client.Post(path, "name=Ana+Lima", "application/x-www-form-urlencoded");
  ASSERT_TRUE(acked);
  ASSERT_EQ(acked->status, 200) << acked->body;
  EXPECT_NE(acked->body.find("3 incidents of group"), std::string::npos) << acked->body;

  // Who acked, everywhere it is shown.
  for (const std::string& key : keys) {
    EXPECT_EQ(Read(port, "/v1/incidents/" + key)["incident"]["acked_by"], "link:Ana Lima") << key;
    const json timeline = Read(port, "/v1/incidents/" + key + "/timeline");
    ASSERT_FALSE(timeline["generations"].empty()) << timeline.dump();
    EXPECT_EQ(timeline["generations"].back()["acked_by"], "link:Ana Lima") << timeline.dump();
    EXPECT_TRUE(timeline["generations"].back()["acked_at"].is_string()) << timeline.dump();
  }
  const testing::ProcessResult shown =
      testing::RunProcess({testing::QuellBinary(), "incidents", "show", keys[0], "-c", config_});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("link:Ana Lima"), std::string::npos) << shown.out;
  const json group = Read(port, "/v1/groups/hook/condition%3Dagent-errors");
  EXPECT_EQ(group["group"]["open"], 3) << group.dump();
  ASSERT_EQ(group["members"].size(), 3U) << group.dump();
  for (const json& member : group["members"]) EXPECT_EQ(member["acked_by"], "link:Ana Lima");
  EXPECT_FALSE(group["messages"].empty()) << group.dump();

  // Several cooldowns later, no reminder went out.
  const size_t sent = Delivered().size();
  const size_t cycles = testing::Events(log_, "poll.cycle_end").size();
  ASSERT_TRUE(WaitFor([&] { return testing::Events(log_, "poll.cycle_end").size() >= cycles + 8; },
                      seconds(30)));
  EXPECT_EQ(Delivered().size(), sent) << testing::ReadFile(log_);
  EXPECT_EQ(run.Signal(SIGTERM), 0) << testing::ReadFile(log_);
  const auto lines = testing::Events(log_, "http.ack_link");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back()["status"], "acked");
  EXPECT_EQ(lines.back()["keys"], "3");
  EXPECT_EQ(lines.back()["who"], "link:Ana Lima");
  EXPECT_EQ(testing::ReadFile(log_).find(path.substr(path.rfind('.') + 1)), std::string::npos)
      << "the link's mac is never logged";
}

}  // namespace group_ack_link_e2e_test
}  // namespace quell
