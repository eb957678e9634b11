// A silence that swallows a renotify, through `quell run`: quell-sim in process with one failing
// error group, the daemon as a child process on a real SQLite file, a loopback webhook receiver,
// the silence added and removed over the daemon's own HTTP API. The message after the silence
// must count the upstream's errors since the last message the channel got, not since the
// silenced one nobody saw.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "quell/sim/scenario.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "webhook_receiver.h"

namespace run_silence_counts_e2e_test {
namespace {

using nlohmann::json;
using quell::testing::SetEnv;
using quell::testing::WaitFor;
using std::chrono::seconds;

constexpr const char* kApiKey = "ifr_pk_proj_silence_counts_0123456";
constexpr const char* kHookSecret = "whsec-silence-counts-7d2a";
constexpr const char* kToken = "tok-silence-counts-0123456789";
constexpr const char* kKey = "acme:pay:grp_s";
constexpr const char* kKeyPath = "/v1/incidents/acme%3Apay%3Agrp_s";

// The accepted webhook bodies, in arrival order.
std::vector<json> Delivered(const quell::testing::WebhookReceiver& hook) {
  std::vector<json> out;
  for (const auto& request : hook.Requests()) {
    if (request.authorized && !request.duplicate) out.push_back(json::parse(request.body));
  }
  return out;
}

TEST(RunSilenceCountsTest, TheMessageAfterASilenceCountsFromTheLastMessageSent) {
  auto sim = quell::testing::StartInfraiSim(
      json{{"groups", json::array({{{"id", "grp_s"},
                                    {"title", "Checkout failed"},
                                    {"tags", {{"tenant", "acme"}, {"agent_stage", "pay"}}},
                                    {"events", 3}}})}},
      kApiKey);
  ASSERT_TRUE(sim);
  quell::testing::WebhookReceiver hook(kHookSecret);
  SetEnv("HOOK_SECRET", kHookSecret);
  SetEnv("COUNTS_HTTP_TOKEN", kToken);
  quell::testing::ScratchDir dir("quell-silence-counts");
  const auto config = dir / "quell.yaml";
  std::ofstream(config) << "store: sqlite:" << (dir / "quell.db").string() << "\n"
                        << quell::testing::kInfraiSection
                        << "defaults: {cooldown: 2s, channels: [hook]}\n"
                        << "conditions:\n"
                        << "  - {name: agent-errors, type: error_groups, interval: 1s,\n"
                        << "     key: \"{tags.tenant}:{tags.agent_stage}:{error_group_id}\"}\n"
                        << "channels:\n"
                        << "  - {name: hook, type: webhook, url: \"" << hook.Url()
                        << "\", secret_env: HOOK_SECRET}\n"
                        << "dispatch: {idle_interval: 100ms}\n"
                        << "log: {format: json, level: info}\n"
                        << "http: {listen: \"127.0.0.1:0\", token_env: COUNTS_HTTP_TOKEN}\n";
  quell::testing::QuellRun run(config, dir / "run.log");
  const int port = run.WaitListening();
  ASSERT_GT(port, 0) << run.Log();
  httplib::Client client("127.0.0.1", port);
  const httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  auto incident = [&] {
    auto answer = client.Get(kKeyPath, auth);
    return answer && answer->status == 200 ? json::parse(answer->body) : json::object();
  };
  auto silenced_renotifies = [&] {
    int n = 0;
    for (const json& row : incident().value("outbox", json::array())) {
      n += row["transition"] == "renotify" && row["status"] == "silenced" ? 1 : 0;
    }
    return n;
  };

  ASSERT_TRUE(WaitFor([&] { return !Delivered(hook).empty(); }, seconds(30))) << run.Log();
  const json open = Delivered(hook)[0];
  ASSERT_EQ(open["transition"], "open");
  EXPECT_EQ(open["incident"]["upstream_count"], 3);

  auto added = client.Post("/v1/silences", auth,
                           json{{"key", kKey}, {"for", "1h"}, {"reason", "deploying"}}.dump(),
                           "application/json");
  ASSERT_TRUE(added);
  ASSERT_EQ(added->status, 201) << added->body;
  const auto silence_id = json::parse(added->body)["silence"]["id"].get<int64_t>();
  {
    const std::lock_guard lock(sim->state().mu);
    ASSERT_TRUE(quell::sim::ApplyAction(sim->state(),
                                        json{{"op", "event"}, {"group", "grp_s"}, {"count", 5}})
                    .ok());
  }
  // A renotify silenced after the poll that recorded the 5 new errors.
  ASSERT_TRUE(
      WaitFor([&] { return incident()["incident"].value("upstream_count", 0) == 8; }, seconds(30)))
      << run.Log();
  const int before = silenced_renotifies();
  ASSERT_TRUE(WaitFor([&] { return silenced_renotifies() > before; }, seconds(30))) << run.Log();
  const size_t sent = Delivered(hook).size();
  auto removed = client.Delete("/v1/silences/" + std::to_string(silence_id), auth);
  ASSERT_TRUE(removed);
  ASSERT_EQ(removed->status, 200) << removed->body;

  ASSERT_TRUE(WaitFor([&] { return Delivered(hook).size() > sent; }, seconds(30))) << run.Log();
  const json next = Delivered(hook)[sent];
  EXPECT_EQ(run.Signal(SIGTERM), 0) << run.Log();
  ASSERT_EQ(next["transition"], "renotify");
  EXPECT_EQ(next["incident"]["upstream_count"], 8);
  // The channel last heard of 3 errors: 5 are new to it, though the silenced renotify
  // reported 8 to nobody.
  EXPECT_EQ(next["incident"]["upstream_count_since_last_message"], 5) << next.dump();
  const std::string body = next["message"]["body"].get<std::string>();
  EXPECT_NE(body.find("5 since the last message"), std::string::npos) << body;
  sim->Stop();
}

}  // namespace
}  // namespace run_silence_counts_e2e_test
