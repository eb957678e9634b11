// `quell run` on PostgreSQL while the server restarts under it: a private PostgreSQL started
// and stopped by scripts/pg-test-server (restarting the shared test server would cut every
// other pg test), quell-sim in process, a loopback webhook receiver. The daemon must recover by
// itself: /readyz goes red while the server is away and green again after, an error group that
// opened meanwhile is delivered once, and the resolve that fell due meanwhile is delivered once.
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "quell/sim/server.h"
#include "run_process.h"
#include "test_paths.h"
#include "webhook_receiver.h"

namespace quell {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using testing::Child;
using testing::Events;
using testing::HttpGet;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kApiKey = "ifr_pk_proj_pgrestart_0123456789ab";
constexpr const char* kHookSecret = "whsec-pgrestart-5c1d";

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

// (incident key, transition) -> accepted requests, duplicates by idempotency key included.
std::map<std::pair<std::string, std::string>, int> Accepted(const testing::WebhookReceiver& hook) {
  std::map<std::pair<std::string, std::string>, int> seen;
  for (const testing::ReceivedRequest& r : hook.Requests()) {
    if (!r.authorized) continue;
    const json body = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (!body.is_object()) continue;
    ++seen[{body.value("key", ""), body.value("transition", "")}];
  }
  return seen;
}

class RunPgRestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("QUELL_TEST_PG_URL") == nullptr) {  // NOLINT(concurrency-mt-unsafe)
      const char* ci = std::getenv("CI");               // NOLINT(concurrency-mt-unsafe)
      if (ci != nullptr && std::string(ci) == "true") FAIL() << "CI=true but no PostgreSQL";
      GTEST_SKIP() << "QUELL_TEST_PG_URL is not set: the pg tests are not wanted here";
    }
    dir_ =
        std::filesystem::temp_directory_path() / ("quell-pg-restart-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::filesystem::permissions(dir_, std::filesystem::perms::all);  // the postgres user's too
    port_ = FreePort();
    ASSERT_GT(port_, 0);
    auto started = Server("start");
    ASSERT_EQ(started.exit_code, 0) << started.err;
    url_ = started.out.substr(0, started.out.find('\n'));

    sim::SimOptions options;
    options.scenario = json::parse(R"({"groups": [{"id": "grp_first", "title": "Checkout failed",
        "tags": {"tenant": "acme", "agent_stage": "checkout"}, "events": 3}]})");
    sim_ = std::make_unique<sim::SimServer>(std::move(options));
    auto sim_port = sim_->Start();
    ASSERT_TRUE(sim_port.ok()) << sim_port.error().message;
    SetEnv("INFRAI_BASE_URL", "http://127.0.0.1:" + std::to_string(*sim_port));
    SetEnv("INFRAI_API_KEY", kApiKey);
    SetEnv("HOOK_SECRET", kHookSecret);
    SetEnv("QUELL_STORE", url_);
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
    if (port_ > 0) (void)Server("stop");
    std::filesystem::remove_all(dir_);
  }

  // scripts/pg-test-server start|stop on this test's own data directory and port.
  testing::ProcessResult Server(const std::string& command) {
    std::vector<std::string> args = {testing::SourcePath("scripts/pg-test-server"), command,
                                     (dir_ / "pg").string()};
    if (command == "start") args.push_back(std::to_string(port_));
    return testing::RunProcess(args);
  }

  // The sim's admin API: POST `path` with `body`.
  void SimPost(const std::string& path, const std::string& body) {
    httplib::Client client("127.0.0.1", sim_->port());
    auto r = client.Post(path.c_str(), body, "application/json");
    ASSERT_TRUE(r) << path;
    ASSERT_EQ(r->status, 200) << path << ": " << r->body;
  }

  std::filesystem::path dir_;
  int port_ = -1;
  std::string url_;
  std::string config_;
  std::filesystem::path log_;
  std::unique_ptr<sim::SimServer> sim_;
};

TEST_F(RunPgRestartTest, RecoversByItselfAndDeliversWhatHappenedMeanwhileOnce) {
  testing::WebhookReceiver hook(kHookSecret);
  std::ofstream(config_) << "store: ${QUELL_STORE}\n"
                         << "infrai:\n  base_url: ${INFRAI_BASE_URL}\n"
                         << "  retry: {max_attempts: 1}\n"
                         << "defaults: {healthy_polls_to_close: 1, channels: [hook]}\n"
                         << "conditions:\n"
                         << "  - {name: agent-errors, type: error_groups, interval: 1s}\n"
                         << "channels:\n"
                         << "  - {name: hook, type: webhook, url: \"" << hook.Url()
                         << "\", secret_env: HOOK_SECRET, timeout: 2s, initial_backoff: 100ms,"
                         << " max_backoff: 200ms}\n"
                         << "log: {format: json, level: info}\n"
                         << "http: {listen: \"127.0.0.1:0\", open_reads: true, health_grace: 1s}\n";
  auto run = std::make_unique<Child>(
      std::vector<std::string>{testing::QuellBinary(), "run", "-c", config_}, log_);
  ASSERT_TRUE(WaitFor([&] { return !Events(log_, "http.listening").empty(); }, seconds(30)))
      << testing::ReadFile(log_);
  const int port = std::stoi(Events(log_, "http.listening")[0]["port"].get<std::string>());
  const std::pair<std::string, std::string> first_open{"acme:checkout:grp_first", "open"};
  ASSERT_TRUE(WaitFor([&] { return Accepted(hook)[first_open] == 1; }, seconds(30)))
      << testing::ReadFile(log_);
  ASSERT_TRUE(
      WaitFor([&] { return HttpGet(port, "/readyz", nullptr, seconds(2)) == 200; }, seconds(30)));

  // The server goes away; meanwhile the first group resolves and a second one opens upstream.
  auto stopped = Server("stop");
  ASSERT_EQ(stopped.exit_code, 0) << stopped.err;
  SimPost("/_sim/groups/grp_first/resolve", "{}");
  SimPost("/_sim/groups", R"({"id": "grp_second", "title": "Refund failed",
      "tags": {"tenant": "acme", "agent_stage": "refund"}, "events": 2})");
  const size_t ends_before = Events(log_, "poll.cycle_end").size();
  std::string body;
  ASSERT_TRUE(
      WaitFor([&] { return HttpGet(port, "/readyz", &body, seconds(2)) == 503; }, seconds(30)))
      << testing::ReadFile(log_);
  EXPECT_NE(body.find("PostgreSQL at 127.0.0.1:" + std::to_string(port_)), std::string::npos)
      << body;
  // At least one poll fails against the missing server before it comes back.
  ASSERT_TRUE(WaitFor(
      [&] {
        const auto ends = Events(log_, "poll.cycle_end");
        for (size_t i = ends_before; i < ends.size(); ++i) {
          if (!ends[i]["ok"].get<bool>()) return true;
        }
        return false;
      },
      seconds(30)))
      << testing::ReadFile(log_);
  auto restarted = Server("start");
  ASSERT_EQ(restarted.exit_code, 0) << restarted.err;

  // Back by itself: ready again, and what happened meanwhile delivered.
  const std::pair<std::string, std::string> first_resolve{"acme:checkout:grp_first", "resolve"};
  const std::pair<std::string, std::string> second_open{"acme:refund:grp_second", "open"};
  ASSERT_TRUE(WaitFor(
      [&] {
        auto seen = Accepted(hook);
        return seen[first_resolve] >= 1 && seen[second_open] >= 1;
      },
      seconds(60)))
      << testing::ReadFile(log_);
  ASSERT_TRUE(
      WaitFor([&] { return HttpGet(port, "/readyz", &body, seconds(2)) == 200; }, seconds(30)))
      << body;
  // A few more cycles: nothing is sent again.
  const size_t ends_now = Events(log_, "poll.cycle_end").size();
  ASSERT_TRUE(
      WaitFor([&] { return Events(log_, "poll.cycle_end").size() >= ends_now + 3; }, seconds(30)));
  EXPECT_EQ(run->Signal(SIGTERM), 0) << testing::ReadFile(log_);

  const auto seen = Accepted(hook);
  EXPECT_EQ(seen.size(), 3U);
  for (const auto& [what, count] : seen) {
    EXPECT_EQ(count, 1) << what.first << " " << what.second << " arrived " << count << " times";
  }
  // The dispatcher said the outage once each way instead of an error every round.
  EXPECT_TRUE(Events(log_, "dispatch.error").empty()) << testing::ReadFile(log_);
  EXPECT_FALSE(Events(log_, "dispatch.store_unavailable").empty());
  EXPECT_FALSE(Events(log_, "dispatch.store_recovered").empty());
  auto outbox = testing::RunProcess(
      {testing::QuellBinary(), "outbox", "list", "--format", "jsonl", "--store", url_});
  ASSERT_EQ(outbox.exit_code, 0) << outbox.err;
  std::istringstream rows(outbox.out);
  size_t n = 0;
  for (std::string line; std::getline(rows, line); ++n) {
    EXPECT_EQ(json::parse(line)["status"], "sent") << line;
  }
  EXPECT_EQ(n, 3U);
}

}  // namespace
}  // namespace quell
