// GET /v1/maintenance on `quell run`'s own HTTP port: the daemon as a child process with
// quell-sim in process, a real SQLite file and the system's tz database; the listing is what
// `quell maintenance list` prints for the same file at the same instant.
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

#include "daemon_probe.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"

namespace quell {
namespace maintenance_run_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kToken = "maintenance-e2e-token-3f9a1c";

TEST(MaintenanceRunE2eTest, TheDaemonListsItsWindowsOverHttpAsTheCliDoes) {
  const testing::ScratchDir dir("quell-maintenance-run");
  const auto sim = testing::StartInfraiSim(json{{"groups", json::array()}},
                                           "ifr_pk_proj_maint_0123456789abcdef");
  ASSERT_TRUE(sim);
  SetEnv("QUELL_OPS_TOKEN", kToken);
  SetEnv("HOOK_SECRET", "whsec-maintenance-e2e-7d21");
  const std::string config = (dir / "quell.yaml").string();
  const std::filesystem::path log = dir / "run.log";
  // The config with `more_windows` after its two: what a reload adds.
  const auto write_config = [&](const std::string& more_windows) {
    std::ofstream(config) << "store: sqlite:" << (dir / "quell.db").string() << "\n"
                          << testing::kInfraiSection << "defaults: {channels: [hook]}\n"
                          << "conditions:\n"
                          << "  - {name: agent-errors, type: error_groups, interval: 1s}\n"
                          << "channels:\n"
                          << "  - {name: hook, type: webhook, url: \"http://127.0.0.1:9/none\",\n"
                          << "     secret_env: HOOK_SECRET}\n"
                          << "maintenance:\n"
                          << "  - name: tuesday-deploys\n    keys: \"deploy:*\"\n"
                          << "    labels: {tenant: acme}\n    time_zone: Europe/Berlin\n"
                          << "    weekdays: [tuesday]\n    times: [\"09:00-10:00\"]\n"
                          << "  - name: nightly\n    time_zone: America/New_York\n"
                          << "    weekdays: [monday, friday]\n    times: [\"23:30-01:00\"]\n"
                          << more_windows << "log: {format: json, level: info}\n"
                          << "http:\n  listen: \"127.0.0.1:0\"\n  token_env: QUELL_OPS_TOKEN\n";
  };
  write_config("");
  auto run = std::make_unique<testing::QuellRun>(config, log);
  ASSERT_TRUE(run->running());
  const int port = run->WaitListening();
  ASSERT_GT(port, 0) << run->Log();
  httplib::Client client("127.0.0.1", port);
  auto refused = client.Get("/v1/maintenance");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  auto answer = client.Get("/v1/maintenance", {{"Authorization", std::string("Bearer ") + kToken}});
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->status, 200) << answer->body;
  const json windows = json::parse(answer->body)["windows"];
  ASSERT_EQ(windows.size(), 2u) << answer->body;
  EXPECT_EQ(windows[0]["name"], "tuesday-deploys");
  EXPECT_EQ(windows[0]["labels"], json({{"tenant", "acme"}}));
  EXPECT_EQ(windows[1]["weekdays"], json({"monday", "friday"}));
  EXPECT_EQ(windows[1]["times"], json({"23:30-01:00"}));

  // A reload that adds a window: the listing shows what the poller now mutes by.
  write_config(
      "  - name: sundays\n    time_zone: Asia/Tokyo\n    weekdays: [sunday]\n"
      "    times: [\"00:00-24:00\"]\n");
  run->Send(SIGHUP);
  ASSERT_TRUE(
      WaitFor([&] { return !testing::Events(log, "config.reloaded").empty(); }, seconds(30)))
      << testing::ReadFile(log);
  auto reloaded =
      client.Get("/v1/maintenance", {{"Authorization", std::string("Bearer ") + kToken}});
  ASSERT_TRUE(reloaded);
  const json after = json::parse(reloaded->body)["windows"];
  ASSERT_EQ(after.size(), 3u) << reloaded->body;
  EXPECT_EQ(after[2]["name"], "sundays");
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log);

  // The CLI at the instant the server saw: the same objects, one per line.
  const testing::ProcessResult cli =
      testing::RunProcess({testing::QuellBinary(), "maintenance", "list", "-c", config, "--at",
                           windows[0]["start"].get<std::string>()},
                          "");
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  const json first_line = json::parse(cli.out.substr(0, cli.out.find('\n')));
  EXPECT_EQ(first_line["keys"], windows[0]["keys"]);
  EXPECT_EQ(first_line["weekdays"], windows[0]["weekdays"]);
  EXPECT_EQ(first_line["times"], windows[0]["times"]);
  EXPECT_EQ(first_line["time_zone"], "Europe/Berlin");
  EXPECT_EQ(first_line["active"], true);  // at its own start
  sim->Stop();
}

}  // namespace maintenance_run_e2e_test
}  // namespace quell
