// `quell run` end to end: quell-sim in process, the daemon as a child process on a real SQLite
// file, a loopback webhook receiver; stopped by SIGTERM, reloaded by SIGHUP. And `quell config
// check` on a file with several mistakes.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "healthchecks_receiver.h"
#include "prometheus_server.h"
#include "quell/sim/scenario.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"
#include "webhook_receiver.h"

namespace quell {
namespace run_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::Child;
using testing::Events;
using testing::Fault;
using testing::HttpGet;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kApiKey = "ifr_pk_proj_run_0123456789abcdef";
constexpr const char* kHookSecret = "whsec-run-81b2-0f9e3a";

class RunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = testing::StartInfraiSim(
        json::parse(R"({"groups": [{"id": "grp_run", "title": "Checkout failed",
        "tags": {"tenant": "acme", "agent_stage": "checkout"}, "events": 3}]})"),
        kApiKey);
    ASSERT_TRUE(sim_);
    SetEnv("QUELL_STORE", "sqlite:" + (dir_ / "quell.db").string());
    SetEnv("HOOK_SECRET", kHookSecret);
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  // One error-group condition polled every `interval`, routed to a webhook at `hook`.
  void WriteConfig(const testing::WebhookReceiver& hook, const std::string& interval,
                   const std::string& channel_extra = "", const std::string& extra = "",
                   const std::string& infrai_extra = "") {
    std::ofstream(config_)
        << "store: ${QUELL_STORE}\n"
        << "infrai:\n  base_url: ${INFRAI_BASE_URL}\n"
        << "  retry: {max_attempts: 1}\n"
        << infrai_extra << "defaults: {healthy_polls_to_close: 1, channels: [hook]}\n"
        << "conditions:\n"
        << "  - {name: agent-errors, type: error_groups, interval: " << interval << "}\n"
        << "channels:\n"
        << "  - {name: hook, type: webhook, url: \"" << hook.Url()
        << "\", secret_env: HOOK_SECRET, timeout: 2s, initial_backoff: 100ms, "
        << "max_backoff: 200ms" << channel_extra << "}\n"
        << "log: {format: json, level: info}\n"
        << "http: {listen: \"127.0.0.1:0\", open_reads: true, health_grace: 1s}\n"
        << extra;
  }

  testing::ProcessResult Quell(std::vector<std::string> args) {
    args.insert(args.begin(), testing::QuellBinary());
    auto result = testing::RunProcess(args);
    for (const char* secret : {kApiKey, kHookSecret}) {
      EXPECT_EQ(result.err.find(secret), std::string::npos) << "a secret reached stderr";
      EXPECT_EQ(result.out.find(secret), std::string::npos) << "a secret reached stdout";
    }
    return result;
  }

  std::vector<json> Outbox() {
    auto r = Quell({"outbox", "list", "--format", "jsonl", "--store",
                    "sqlite:" + (dir_ / "quell.db").string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<json> rows;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
    return rows;
  }

  std::unique_ptr<testing::QuellRun> StartRun() {
    return std::make_unique<testing::QuellRun>(config_, log_);
  }

  static bool ExitedCleanly(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

  testing::ScratchDir dir_{"quell-run"};
  std::string config_;
  std::filesystem::path log_;
  std::unique_ptr<sim::SimServer> sim_;
};

TEST_F(RunTest, PollsDecidesAndDeliversInOneProcessThenStopsOnSigterm) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook, "1s");
  auto run = StartRun();
  ASSERT_TRUE(run->running());
  ASSERT_TRUE(WaitFor([&] { return hook.DeliveredKeys().size() == 1; }, std::chrono::seconds(20)))
      << testing::ReadFile(log_);
  // At least one more cycle: the daemon keeps polling at its interval, and the open incident
  // does not notify again.
  ASSERT_TRUE(WaitFor([&] { return Events(log_, "poll.cycle_end").size() >= 3; }, seconds(20)))
      << testing::ReadFile(log_);
  EXPECT_TRUE(ExitedCleanly(run->Signal(SIGTERM))) << testing::ReadFile(log_);
  EXPECT_EQ(hook.DeliveredKeys().size(), 1U);

  const auto starts = Events(log_, "poll.cycle_start");
  ASSERT_GE(starts.size(), 3U);
  EXPECT_NE(starts[0]["poll_id"], starts[1]["poll_id"]) << "a fresh run id per cycle";
  EXPECT_EQ(starts[0]["poll_id"].get<std::string>().size(), 36U);
  const auto decisions = Events(log_, "poll.decision");
  ASSERT_FALSE(decisions.empty());
  EXPECT_EQ(decisions[0]["incident_key"], "acme:checkout:grp_run");
  EXPECT_EQ(decisions[0]["poll_id"], starts[0]["poll_id"]);
  EXPECT_EQ(Events(log_, "run.stopped").size(), 1U);
  // Counts and flags are JSON numbers and booleans, not strings ("observations":"0").
  const auto conditions = Events(log_, "poll.condition");
  ASSERT_FALSE(conditions.empty());
  EXPECT_TRUE(conditions[0]["observations"].is_number()) << conditions[0];
  EXPECT_TRUE(Events(log_, "poll.cycle_end")[0]["ok"].is_boolean());
  const auto rows = Outbox();
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0]["status"], "sent");
}

// GET http://127.0.0.1:PORT/PATH with a short timeout; -1 when nothing answered.
TEST_F(RunTest, HeartbeatPingsEachCycleInOrderAndAStoppedDaemonGoesSilentAndUnhealthy) {
  testing::WebhookReceiver hook(kHookSecret);
  testing::HealthchecksReceiver pings;
  WriteConfig(hook, "1s", "", "heartbeat: {url: \"" + pings.Url() + "\", timeout: 2s}\n");
  auto run = StartRun();
  const int port = run->WaitListening();
  ASSERT_GT(port, 0) << run->Log();
  const auto successes = [&] {
    size_t n = 0;
    for (const auto& p : pings.Pings()) n += p.kind == "success" ? 1U : 0U;
    return n;
  };
  ASSERT_TRUE(WaitFor([&] { return successes() >= 3; }, seconds(20))) << testing::ReadFile(log_);
  std::string metrics;
  EXPECT_EQ(HttpGet(port, "/healthz"), 200);
  EXPECT_EQ(HttpGet(port, "/readyz"), 200);
  EXPECT_EQ(HttpGet(port, "/metrics", &metrics), 200);
  EXPECT_NE(metrics.find("quell_poll_cycles_total"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("quell_outbox_rows{status=\"sent\"}"), std::string::npos) << metrics;

  // A stopped process: no ping, and the health check gets no healthy answer.
  run->Send(SIGSTOP);
  // Time, not a condition: a ping sent just before the stop reaches the receiver's count.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const size_t before = pings.Pings().size();
  // Longer than an interval and its jitter: a running daemon would have pinged. (How long
  // /healthz takes to go stale is daemon_runtime_test's and health_test's, on a fake clock.)
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(pings.Pings().size(), before) << "pings while stopped";
  EXPECT_NE(HttpGet(port, "/healthz"), 200);
  run->Send(SIGCONT);
  ASSERT_TRUE(WaitFor([&] { return pings.Pings().size() >= before + 2; }, seconds(20)));
  ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/healthz") == 200; }, seconds(20)));
  EXPECT_TRUE(ExitedCleanly(run->Signal(SIGTERM))) << testing::ReadFile(log_);

  // Each cycle: /start then the success ping, both with the cycle's own rid.
  const auto all = pings.Pings();
  std::vector<std::string> rids;
  for (size_t i = 0; i + 1 < all.size(); i += 2) {
    EXPECT_EQ(all[i].kind, "start") << i;
    EXPECT_EQ(all[i + 1].kind, "success") << i + 1;
    EXPECT_EQ(all[i].rid, all[i + 1].rid) << i;
    EXPECT_EQ(all[i].rid.size(), 36U);
    for (const std::string& earlier : rids) EXPECT_NE(earlier, all[i].rid) << "a reused rid";
    rids.push_back(all[i].rid);
  }
  EXPECT_GE(rids.size(), 4U);
}

// Another process holds the SQLite file's write lock: every write of the daemon fails (as on a
// full disk or a read-only file) while reads still answer. Readiness must say so, naming the
// store, and come back by itself once a write goes through again.
TEST_F(RunTest, ReadinessFailsWhileTheStoreRefusesWritesAndRecoversByItself) {
  testing::WebhookReceiver hook(kHookSecret);
  const std::string db = (dir_ / "quell.db").string();
  SetEnv("QUELL_STORE", "sqlite:" + db + "?busy_timeout_ms=200");
  WriteConfig(hook, "1s");
  auto run = StartRun();
  const int port = run->WaitListening();
  ASSERT_GT(port, 0) << run->Log();
  ASSERT_TRUE(WaitFor([&] { return hook.DeliveredKeys().size() == 1; }, seconds(20)))
      << testing::ReadFile(log_);
  ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/readyz") == 200; }, seconds(20)));

  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::string body;
  const bool red = WaitFor([&] { return HttpGet(port, "/readyz", &body) == 503; }, seconds(20));
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  ASSERT_TRUE(red) << "readiness stayed green while every write failed";
  EXPECT_NE(body.find("database is locked by another process: " + db), std::string::npos) << body;

  ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/readyz", &body) == 200; }, seconds(20))) << body;
  EXPECT_TRUE(ExitedCleanly(run->Signal(SIGTERM))) << testing::ReadFile(log_);
}

// A source that hangs (40 s per request, past the 30 s request timeout) made one cycle last
// as long as the hang and /healthz answer 503 meanwhile, so a supervisor restarted a daemon that
// was only waiting. With a poll deadline the source is observed unknown when it passes, the
// cycle commits, the open incident is held, and liveness stays green throughout.
TEST_F(RunTest, ASourceHangingPastItsPollDeadlineIsHeldUnknownAndLivenessStaysGreen) {
  testing::WebhookReceiver hook(kHookSecret);
  // Liveness limit: 2 x 1s + 1s deadline + 1s grace = 4s; the hang is ten times that.
  WriteConfig(hook, "1s", "", "", "  poll_deadline: 1s\n");
  auto run = StartRun();
  ASSERT_TRUE(WaitFor([&] { return hook.DeliveredKeys().size() == 1; }, seconds(20)))
      << testing::ReadFile(log_);
  const int port = run->WaitListening();
  ASSERT_GT(port, 0) << run->Log();
  {
    const std::lock_guard lock(sim_->state().mu);
    sim::Fault hang;
    hang.route = "errors.groups";
    hang.kind = sim::FaultKind::kTimeout;
    hang.delay_ms = 40000;
    sim_->state().faults.Add(hang);
  }
  const auto hung_at = std::chrono::steady_clock::now();
  const size_t ended_before = Events(log_, "poll.cycle_end").size();
  // Past the old limit (3 s) and the new one (4 s): every probe answers 200.
  while (std::chrono::steady_clock::now() - hung_at < seconds(6)) {
    std::string body;
    ASSERT_EQ(HttpGet(port, "/healthz", &body), 200) << body << testing::ReadFile(log_);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  // Cycles kept ending while the source hung, each at its deadline, with the source's error.
  const auto ended = Events(log_, "poll.cycle_end");
  ASSERT_GE(ended.size(), ended_before + 2) << testing::ReadFile(log_);
  size_t cut = 0;
  for (const auto& c : Events(log_, "poll.condition")) {
    if (c.value("source_error", "").find("poll deadline") == std::string::npos) continue;
    ++cut;
    EXPECT_EQ(c["observations"], 1) << c;  // the open incident, observed unknown
    EXPECT_EQ(c["notify"], 0) << c;
    EXPECT_EQ(c["resolve"], 0) << c;
    EXPECT_EQ(c["apply_error"], "") << c;  // committed
  }
  EXPECT_GE(cut, 2U) << testing::ReadFile(log_);
  EXPECT_TRUE(ExitedCleanly(run->Signal(SIGTERM))) << testing::ReadFile(log_);
  // Held, not resolved: the open is the incident's only message, and it is still open. The
  // source's own incident (issue 31) may have opened by now too: source_failures_to_open (3)
  // failed polls in a row; it never resolves while the source hangs.
  size_t about_the_incident = 0;
  for (const auto& request : hook.Requests()) {
    const json body = json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    if (!request.duplicate && body.is_object() &&
        body.value("key", "") == "acme:checkout:grp_run") {
      ++about_the_incident;
    }
  }
  EXPECT_EQ(about_the_incident, 1U);
  std::vector<json> rows;
  for (const json& row : Outbox()) {
    if (row["key"] == "acme:checkout:grp_run") {
      rows.push_back(row);
    } else {
      EXPECT_EQ(row["key"], "source:infrai error groups") << row;
      EXPECT_EQ(row["transition"], "open") << row;
    }
  }
  ASSERT_EQ(rows.size(), 1U);
  auto shown = Quell({"incidents", "show", "acme:checkout:grp_run", "--format", "jsonl", "--store",
                      "sqlite:" + (dir_ / "quell.db").string()});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find(R"("status":"open")"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find(R"("version":1,)"), std::string::npos) << "unknown changes nothing";
}

TEST_F(RunTest, SigtermDuringAHeldSendExitsCleanlyAndLosesNothing) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook, "1s", "", "dispatch: {lease: 2s, idle_interval: 100ms}\n");
  hook.FailNext(Fault::kHang);
  auto run = StartRun();
  ASSERT_TRUE(WaitFor([&] { return !hook.Requests().empty(); }, seconds(20)))
      << testing::ReadFile(log_);
  const auto signalled = std::chrono::steady_clock::now();
  const int status = run->Signal(SIGTERM);
  const auto stop_took = std::chrono::steady_clock::now() - signalled;
  EXPECT_TRUE(ExitedCleanly(status)) << testing::ReadFile(log_);
  // Bounded by the channel's 2s timeout (and one poll), not by the hung receiver.
  EXPECT_LT(stop_took, seconds(8));

  // Nothing lost: the row is sent, or still owed (pending, or in flight under its lease).
  auto rows = Outbox();
  ASSERT_EQ(rows.size(), 1U);
  const std::string status_after = rows[0]["status"];
  EXPECT_TRUE(status_after == "pending" || status_after == "in_flight" || status_after == "sent")
      << status_after;

  // A later dispatcher (after the lease) delivers it, under the same idempotency key.
  hook.ReleaseHung();
  ASSERT_TRUE(WaitFor(
      [&] {
        auto r = Quell({"dispatch", "-c", config_, "--once"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        auto now = Outbox();
        return now.size() == 1 && now[0]["status"] == "sent";
      },
      seconds(15)));
  EXPECT_EQ(hook.DeliveredKeys().size(), 1U) << "exactly one message at the receiver";
  for (const auto& request : hook.Requests()) {
    EXPECT_EQ(request.idempotency_key, hook.Requests()[0].idempotency_key);
  }
}

// A Prometheus condition with a typo'd query observed nothing forever, silently. The daemon now
// warns once its answers kept no series for no_series_warn_after polls, and /metrics counts.
TEST_F(RunTest, APrometheusQueryThatAnswersNoSeriesIsWarnedInTheLogAndMetrics) {
  QUELL_REQUIRE_PROMETHEUS();
  auto prometheus = testing::PrometheusServer::Start(testing::PrometheusServer::Await::kReady);
  ASSERT_TRUE(prometheus.ok()) << prometheus.error().message;
  std::ofstream(config_) << "store: ${QUELL_STORE}\n"
                         << "prometheus: {url: \"" << (*prometheus)->base_url() << "\"}\n"
                         << "defaults: {no_series_warn_after: 2}\n"
                         << "conditions:\n"
                         << "  - {name: latency, type: prometheus, interval: 1s, above: 2,\n"
                         << "     query: \"max by (tenant) (model_answr_latency_seconds)\",\n"
                         << "     key: \"{tenant}:latency\"}\n"
                         << "log: {format: json, level: info}\n"
                         << "http: {listen: \"127.0.0.1:0\", open_reads: true}\n";
  auto run = StartRun();
  ASSERT_TRUE(WaitFor([&] { return !Events(log_, "poll.no_series").empty(); }, seconds(20)))
      << testing::ReadFile(log_);
  const json warning = Events(log_, "poll.no_series")[0];
  EXPECT_EQ(warning["level"], "warn");
  EXPECT_EQ(warning["condition"], "latency");
  EXPECT_EQ(warning["query"], "max by (tenant) (model_answr_latency_seconds)");
  EXPECT_EQ(warning["empty_polls"], "2") << "the first warning comes at the second empty poll";

  const int port = run->WaitListening();
  ASSERT_GT(port, 0) << run->Log();
  std::string metrics;
  ASSERT_EQ(HttpGet(port, "/metrics", &metrics), 200);
  EXPECT_NE(metrics.find("quell_condition_empty_polls{condition=\"latency\"} "), std::string::npos)
      << metrics;
  EXPECT_TRUE(ExitedCleanly(run->Signal(SIGTERM))) << testing::ReadFile(log_);
}

TEST_F(RunTest, SighupWithAnInvalidConfigKeepsPollingAndAValidOneApplies) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(hook, "1s");
  auto run = StartRun();
  ASSERT_TRUE(WaitFor([&] { return !Events(log_, "poll.cycle_end").empty(); }, seconds(20)))
      << testing::ReadFile(log_);

  // A typo on line 3: the reload is refused at that line, and polling goes on.
  std::ofstream(config_) << "store: ${QUELL_STORE}\ninfrai:\n  base_ur1: nope\n";
  run->Send(SIGHUP);
  ASSERT_TRUE(WaitFor([&] { return !Events(log_, "config.reload_rejected").empty(); }, seconds(10)))
      << testing::ReadFile(log_);
  const auto failed = Events(log_, "config.reload_rejected");
  EXPECT_NE(failed[0]["error"].get<std::string>().find(config_ + ":3:3: infrai.base_ur1"),
            std::string::npos)
      << failed[0];
  const size_t cycles = Events(log_, "poll.cycle_end").size();
  ASSERT_TRUE(
      WaitFor([&] { return Events(log_, "poll.cycle_end").size() >= cycles + 2; }, seconds(10)))
      << "the old config keeps polling\n"
      << testing::ReadFile(log_);

  // A valid one with another interval applies before the next cycle.
  WriteConfig(hook, "2s");
  run->Send(SIGHUP);
  ASSERT_TRUE(WaitFor([&] { return !Events(log_, "config.reloaded").empty(); }, seconds(10)))
      << testing::ReadFile(log_);
  EXPECT_EQ(Events(log_, "config.reloaded")[0]["smallest_interval"], "2s");
  const size_t before = Events(log_, "poll.cycle_start").size();
  ASSERT_TRUE(
      WaitFor([&] { return Events(log_, "poll.cycle_start").size() > before; }, seconds(10)));
  EXPECT_EQ(Events(log_, "poll.cycle_start").back()["interval"], "2s");
  EXPECT_TRUE(ExitedCleanly(run->Signal(SIGTERM))) << testing::ReadFile(log_);
  EXPECT_EQ(hook.DeliveredKeys().size(), 1U);
}

// Issue 13: a reload adding a channel whose secret is unset used to switch the poller and not
// the dispatcher, so the new channel's rows went dead at once. Now the whole reload is refused.
TEST_F(RunTest, SighupAddingAChannelWithAnUnsetSecretIsRefusedWholeAndTheOldChannelDelivers) {
  testing::WebhookReceiver hook(kHookSecret);
  testing::WebhookReceiver bot("bot-secret");
  WriteConfig(hook, "1s");
  auto run = StartRun();
  ASSERT_TRUE(WaitFor([&] { return hook.DeliveredKeys().size() == 1; }, seconds(20)))
      << testing::ReadFile(log_);

  unsetenv("BOT_SECRET");  // NOLINT(concurrency-mt-unsafe)
  std::ofstream(config_) << "store: ${QUELL_STORE}\n"
                         << "infrai:\n  base_url: ${INFRAI_BASE_URL}\n"
                         << "  retry: {max_attempts: 1}\n"
                         << "defaults: {healthy_polls_to_close: 1, channels: [hook, bot]}\n"
                         << "conditions:\n"
                         << "  - {name: agent-errors, type: error_groups, interval: 1s}\n"
                         << "channels:\n"
                         << "  - {name: hook, type: webhook, url: \"" << hook.Url()
                         << "\", secret_env: HOOK_SECRET, timeout: 2s}\n"
                         << "  - name: bot\n"
                         << "    type: webhook\n"
                         << "    url: \"" << bot.Url() << "\"\n"
                         << "    secret_env: BOT_SECRET\n"
                         << "log: {format: json, level: info}\n"
                         << "http: {listen: \"127.0.0.1:0\", open_reads: true}\n";
  run->Send(SIGHUP);
  ASSERT_TRUE(WaitFor([&] { return !Events(log_, "config.reload_rejected").empty(); }, seconds(10)))
      << testing::ReadFile(log_);
  const json rejected = Events(log_, "config.reload_rejected")[0];
  EXPECT_EQ(rejected["level"], "warn");
  EXPECT_NE(rejected["error"].get<std::string>().find(config_ + ":13:17: channels[1].secret_env"),
            std::string::npos)
      << rejected;
  EXPECT_NE(rejected["error"].get<std::string>().find("BOT_SECRET"), std::string::npos);
  EXPECT_TRUE(Events(log_, "config.reloaded").empty()) << testing::ReadFile(log_);

  // A second group fails: the running config routes it to `hook` alone, which delivers it.
  {
    std::lock_guard lock(sim_->state().mu);
    ASSERT_TRUE(sim::LoadScenario(sim_->state(), json::parse(R"({"groups": [
        {"id": "grp_run", "title": "Checkout failed",
         "tags": {"tenant": "acme", "agent_stage": "checkout"}, "events": 3},
        {"id": "grp_two", "title": "Refund failed",
         "tags": {"tenant": "acme", "agent_stage": "refund"}, "events": 1}]})"))
                    .ok());
  }
  ASSERT_TRUE(WaitFor([&] { return hook.DeliveredKeys().size() == 2; }, seconds(20)))
      << testing::ReadFile(log_);
  EXPECT_TRUE(ExitedCleanly(run->Signal(SIGTERM))) << testing::ReadFile(log_);
  EXPECT_TRUE(bot.Requests().empty());
  for (const json& row : Outbox()) {
    EXPECT_EQ(row["channel"], "hook") << row;
    EXPECT_NE(row["status"], "dead") << row;
  }
}

TEST_F(RunTest, AnInvalidConfigAtStartExitsTwoWithItsLocation) {
  std::ofstream(config_) << "store: ${QUELL_STORE}\nconditions: []\nbogus: 1\n";
  auto r = Quell({"run", "-c", config_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(config_ + ":3:1: bogus"), std::string::npos) << r.err;
}

TEST_F(RunTest, ConfigCheckReportsEveryErrorWithItsLocation) {
  std::ofstream(config_) << "store: ${QUELL_STORE}\n"
                         << "infrai:\n"
                         << "  base_ur1: http://x\n"
                         << "conditions:\n"
                         << "  - {name: a, type: error_groups, interval: soon}\n"
                         << "log: {format: xml}\n";
  auto r = Quell({"config", "check", "-c", config_});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  std::vector<std::string> located;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(config_ + ":", 0) == 0) located.push_back(line);
  }
  ASSERT_EQ(located.size(), 3U) << r.out;
  EXPECT_NE(located[0].find(":3:3: infrai.base_ur1"), std::string::npos) << located[0];
  EXPECT_NE(located[1].find(":5:"), std::string::npos) << located[1];
  EXPECT_NE(located[2].find(":6:"), std::string::npos) << located[2];
  EXPECT_NE(located[2].find("json or text"), std::string::npos) << located[2];
}

TEST_F(RunTest, ConfigCheckOnTheExampleSaysOkAndWarnsWhileTheWebhookIsUnsigned) {
  SetEnv("QUELL_WEBHOOK_URL", "http://127.0.0.1:9/hook");
  unsetenv("QUELL_WEBHOOK_SECRET");  // NOLINT(concurrency-mt-unsafe)
  unsetenv("QUELL_HTTP_TOKEN");      // NOLINT(concurrency-mt-unsafe)
  const std::string example = testing::SourcePath("examples/quell.yaml");
  auto r = Quell({"config", "check", "-c", example});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" ok: "), std::string::npos) << r.out;
  // Two warnings, the summary and what only a restart applies.
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 4) << r.out;
  EXPECT_NE(r.out.find("warning: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("config check: a reload (SIGHUP) applies every setting but these, which "
                       "need a restart: store, http.listen, http.token,"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("QUELL_WEBHOOK_SECRET is not set"), std::string::npos) << r.out;
  // The API token is named and unset: the API refuses what needs it, and says so.
  EXPECT_NE(r.out.find("QUELL_HTTP_TOKEN is not set: the HTTP API refuses"), std::string::npos)
      << r.out;

  SetEnv("QUELL_WEBHOOK_SECRET", kHookSecret);
  SetEnv("QUELL_HTTP_TOKEN", "run-e2e-example-token");
  r = Quell({"config", "check", "-c", example});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2) << r.out;
  unsetenv("QUELL_WEBHOOK_SECRET");  // NOLINT(concurrency-mt-unsafe)
  unsetenv("QUELL_HTTP_TOKEN");      // NOLINT(concurrency-mt-unsafe)
}

// The done-when of the daemon: the bundled example, unmodified, with the API key and the
// webhook URL. INFRAI_BASE_URL points at quell-sim only because the real service is out of
// reach here; the store is the default quell.db in the working directory.
TEST_F(RunTest, TheExampleRunsWithTheApiKeyAndTheWebhookUrlAlone) {
  testing::WebhookReceiver hook("");  // expects unsigned requests
  SetEnv("QUELL_WEBHOOK_URL", hook.Url());
  for (const char* name :
       {"QUELL_STORE", "QUELL_WEBHOOK_SECRET", "QUELL_HEARTBEAT_URL", "QUELL_HTTP_TOKEN"}) {
    unsetenv(name);  // NOLINT(concurrency-mt-unsafe)
  }
  const std::string example = testing::SourcePath("examples/quell.yaml");
  Child run({"/bin/sh", "-c", "cd \"$0\" && exec \"$1\" run -c \"$2\"", dir_.path().string(),
             testing::QuellBinary(), example},
            log_);
  ASSERT_TRUE(run.running());
  ASSERT_TRUE(WaitFor([&] { return hook.DeliveredKeys().size() == 1; }, seconds(30)))
      << testing::ReadFile(log_);
  EXPECT_TRUE(ExitedCleanly(run.Signal(SIGTERM))) << testing::ReadFile(log_);
  EXPECT_EQ(hook.Requests().size(), 1U);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "quell.db"));
  // The unsigned webhook and the unset API token, each said once.
  const auto warnings = Events(log_, "config.warning");
  ASSERT_EQ(warnings.size(), 2U) << testing::ReadFile(log_);
  std::string said;
  for (const auto& warning : warnings) said += warning["warning"].get<std::string>() + "\n";
  EXPECT_NE(said.find("sends unsigned requests"), std::string::npos) << said;
  EXPECT_NE(said.find("QUELL_HTTP_TOKEN is not set"), std::string::npos) << said;
  SetEnv("QUELL_STORE", "sqlite:" + (dir_ / "quell.db").string());
}

TEST(HelpTest, EverySubcommandHasHelp) {
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"run"},
                                             {"dispatch"},
                                             {"poll-once"},
                                             {"replay"},
                                             {"apply"},
                                             {"config", "check"},
                                             {"schema", "check"},
                                             {"incidents", "list"},
                                             {"incidents", "show"},
                                             {"outbox", "list"}}) {
    std::vector<std::string> args = {testing::QuellBinary()};
    args.insert(args.end(), command.begin(), command.end());
    args.emplace_back("--help");
    auto r = testing::RunProcess(args);
    EXPECT_EQ(r.exit_code, 0) << command[0];
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << command[0] << r.out;
  }
  auto version = testing::RunProcess({testing::QuellBinary(), "--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("quell ", 0), 0U) << version.out;
  EXPECT_EQ(version.out.find("unknown"), std::string::npos) << version.out;
}

}  // namespace run_e2e_test
}  // namespace quell
