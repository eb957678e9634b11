// The Datadog source end to end: `quell poll-once` and `quell dispatch --once` as child processes
// against a stand-in of Datadog's monitor API (test/support/datadog_server, written from
// Datadog's API reference), a real SQLite file and a loopback webhook receiver; and `quell
// config check` and `quell schema check` on datadog configs.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "datadog_server.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"
#include "webhook_receiver.h"

namespace quell {
namespace datadog_e2e_test {

using nlohmann::json;

constexpr const char* kApiKey = "dd-api-5f0c1e9a7b3d4c2e8f6a0b1c2d3e4f5a";
constexpr const char* kAppKey = "dd-app-9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d";
constexpr int64_t kMonitor = 4711;

class DatadogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The child inherits the environment; nothing else in this process reads it.
    setenv("DD_API_KEY", kApiKey, 1);  // NOLINT(concurrency-mt-unsafe)
    setenv("DD_APP_KEY", kAppKey, 1);  // NOLINT(concurrency-mt-unsafe)
    datadog_.SetMonitor(kMonitor, "Support agent answer errors", {"team:support", "env:prod"});
    datadog_.SetMonitor(4712, "Billing latency", {"team:billing"});
    datadog_.SetGroup(4712, "host:bill-1", "Alert");  // another team's: never selected
  }

  std::string Store() const { return "sqlite:" + (dir_ / "quell.db").string(); }

  std::string WriteConfig(const std::string& retry = "{max_attempts: 1}",
                          const std::string& interval = "1m", const std::string& extra = "") {
    const auto path = dir_ / "quell.yaml";
    std::ofstream(path) << "store: " << Store() << "\n"
                        << "datadog:\n"
                        << "  site: datadoghq.eu\n"
                        << "  base_url: " << datadog_.BaseUrl() << "\n"
                        << "  retry: " << retry << "\n"
                        << "defaults: {healthy_polls_to_close: 1, channels: [hook]}\n"
                        << "conditions:\n"
                        << "  - name: dd-support\n"
                        << "    type: datadog_monitors\n"
                        << "    monitor_tags: [\"team:support\"]\n"
                        << "    key: \"dd:{monitor_id}:{tags.host}\"\n"
                        << "    interval: " << interval << "\n"
                        << "channels:\n"
                        << "  - {name: hook, type: webhook, url: \"" << hook_.Url()
                        << "\", timeout: 2s, signing: off}\n"
                        << extra;
    return path.string();
  }

  testing::ProcessResult Quell(std::vector<std::string> args) {
    args.insert(args.begin(), testing::QuellBinary());
    auto result = testing::RunProcess(args);
    for (const char* secret : {kApiKey, kAppKey}) {
      EXPECT_EQ(result.out.find(secret), std::string::npos) << "a Datadog key reached stdout";
      EXPECT_EQ(result.err.find(secret), std::string::npos) << "a Datadog key reached stderr";
    }
    return result;
  }

  // One poll's decisions by key.
  std::map<std::string, json> Poll(const std::string& config, int expected_exit = 0) {
    auto r = Quell({"poll-once", "-c", config});
    EXPECT_EQ(r.exit_code, expected_exit) << r.out << r.err;
    std::map<std::string, json> decided;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      const json parsed = json::parse(line);
      decided[parsed["key"]] = parsed;
    }
    last_err_ = r.err;
    return decided;
  }

  void Dispatch(const std::string& config) {
    auto r = Quell({"dispatch", "-c", config, "--once"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }

  // The messages the receiver accepted, as {key, transition, subject, body}.
  std::vector<json> Messages() const {
    std::vector<json> out;
    for (const testing::ReceivedRequest& request : hook_.Requests()) {
      if (!request.authorized || request.duplicate) continue;
      const json body = json::parse(request.body);
      out.push_back({{"key", body["key"]},
                     {"transition", body["transition"]},
                     {"subject", body["message"]["subject"]},
                     {"body", body["message"]["body"]}});
    }
    return out;
  }

  testing::ScratchDir dir_{"quell-datadog"};
  testing::DatadogServer datadog_{kApiKey, kAppKey};
  testing::WebhookReceiver hook_{""};
  std::string last_err_;
};

// The "done when": a monitor with two groups in Alert opens two incidents, and each
// resolves when its group turns OK.
TEST_F(DatadogTest, TwoGroupsInAlertOpenTwoIncidentsAndEachResolvesOnOk) {
  datadog_.SetGroup(kMonitor, "host:web-1,env:prod", "Alert");
  datadog_.SetGroup(kMonitor, "host:web-2,env:prod", "Alert");
  datadog_.SetGroup(kMonitor, "host:web-3,env:prod", "OK");
  const std::string config = WriteConfig();
  const std::string one = "dd:4711:web-1";
  const std::string two = "dd:4711:web-2";

  auto decided = Poll(config);
  ASSERT_EQ(decided.size(), 2U) << json(decided).dump();  // web-3 is OK: nothing to decide
  EXPECT_EQ(decided[one]["decision"], "notify");
  EXPECT_EQ(decided[one]["reason"], "open");
  EXPECT_EQ(decided[two]["decision"], "notify");
  Dispatch(config);
  auto messages = Messages();
  ASSERT_EQ(messages.size(), 2U);
  for (const json& message : messages) {
    EXPECT_EQ(message["transition"], "open");
    const std::string text =
        message["subject"].get<std::string>() + "\n" + message["body"].get<std::string>();
    EXPECT_NE(text.find("Support agent answer errors"), std::string::npos) << text;
    EXPECT_NE(text.find("Alert on host:web-"), std::string::npos) << text;
  }
  // Only the selected monitor's groups were asked about, with Datadog's parameters.
  const std::vector<std::string> targets = datadog_.Targets();
  ASSERT_FALSE(targets.empty());
  EXPECT_NE(targets[0].find("group_states=all"), std::string::npos) << targets[0];
  EXPECT_NE(targets[0].find("monitor_tags=team:support"), std::string::npos) << targets[0];

  // Still alerting: nothing new.
  decided = Poll(config);
  EXPECT_EQ(decided[one]["decision"], "update_only");
  Dispatch(config);
  EXPECT_EQ(Messages().size(), 2U);

  datadog_.SetGroup(kMonitor, "host:web-1,env:prod", "OK");
  decided = Poll(config);
  EXPECT_EQ(decided[one]["decision"], "resolve") << json(decided).dump();
  EXPECT_EQ(decided[two]["decision"], "update_only");
  Dispatch(config);
  messages = Messages();
  ASSERT_EQ(messages.size(), 3U);
  EXPECT_EQ(messages[2]["key"], one);
  EXPECT_EQ(messages[2]["transition"], "resolve");

  datadog_.SetGroup(kMonitor, "host:web-2,env:prod", "OK");
  decided = Poll(config);
  EXPECT_EQ(decided[two]["decision"], "resolve") << json(decided).dump();
  Dispatch(config);
  messages = Messages();
  ASSERT_EQ(messages.size(), 4U);
  EXPECT_EQ(messages[3]["key"], two);
  EXPECT_EQ(messages[3]["transition"], "resolve");
}

// The daemon polls Datadog at the condition's interval under its own lease and shows it as a
// source of its own; an alerting group pages once and resolves when it reads OK.
TEST_F(DatadogTest, RunPollsTheMonitorsAndShowsDatadogAmongTheSources) {
  datadog_.SetGroup(kMonitor, "host:web-1,env:prod", "Alert");
  const std::string config = WriteConfig("{max_attempts: 1}", "1s",
                                         "log: {format: json, level: info}\n"
                                         "http: {listen: \"127.0.0.1:0\", open_reads: true}\n");
  const auto log = dir_ / "run.log";
  testing::QuellRun run(config, log);
  ASSERT_TRUE(testing::WaitFor([&] { return Messages().size() == 1; }, std::chrono::seconds(30)))
      << testing::ReadFile(log);
  EXPECT_EQ(Messages()[0]["key"], "dd:4711:web-1");
  const int port = run.WaitListening();
  ASSERT_GT(port, 0) << run.Log();
  std::string body;
  ASSERT_EQ(testing::HttpGet(port, "/v1/sources", &body), 200) << body;
  const json sources = json::parse(body);
  bool shown = false;
  for (const json& source : sources["sources"]) {
    if (source["name"] == "datadog") {
      shown = true;
      EXPECT_EQ(source["type"], "datadog");
      EXPECT_EQ(source["base_url"], datadog_.BaseUrl());
      EXPECT_EQ(source["conditions"], json::array({"dd-support"}));
    }
  }
  EXPECT_TRUE(shown) << body;

  datadog_.SetGroup(kMonitor, "host:web-1,env:prod", "OK");
  ASSERT_TRUE(testing::WaitFor([&] { return Messages().size() == 2; }, std::chrono::seconds(30)))
      << testing::ReadFile(log);
  EXPECT_EQ(Messages()[1]["transition"], "resolve");
  EXPECT_TRUE(WIFEXITED(run.Signal(SIGTERM))) << testing::ReadFile(log);
  const std::string logged = testing::ReadFile(log);
  EXPECT_EQ(logged.find(kApiKey), std::string::npos) << "a Datadog key reached the log";
  EXPECT_EQ(logged.find(kAppKey), std::string::npos) << "a Datadog key reached the log";
}

// No Data proves nothing, and a failed poll holds incidents: neither may resolve one.
TEST_F(DatadogTest, NoDataAndAFailedPollHoldTheIncident) {
  datadog_.SetGroup(kMonitor, "host:web-1,env:prod", "Alert");
  const std::string config = WriteConfig();
  const std::string key = "dd:4711:web-1";
  ASSERT_EQ(Poll(config)[key]["decision"], "notify");

  datadog_.SetGroup(kMonitor, "host:web-1,env:prod", "No Data");
  EXPECT_EQ(Poll(config)[key]["decision"], "unknown");

  datadog_.SetGroup(kMonitor, "host:web-1,env:prod", "OK");
  datadog_.FailNext(500);
  auto decided = Poll(config, /*expected_exit=*/1);
  EXPECT_EQ(decided[key]["decision"], "unknown") << json(decided).dump();
  EXPECT_NE(last_err_.find("HTTP 500"), std::string::npos) << last_err_;
  EXPECT_EQ(decided["source:datadog"]["reason"], "pending") << json(decided).dump();

  // The keys went only where Datadog wants them: in the headers.
  for (const std::string& target : datadog_.Targets()) {
    EXPECT_EQ(target.find(kApiKey), std::string::npos) << target;
  }
  EXPECT_EQ(Poll(config)[key]["decision"], "resolve");
}

// Datadog's 429 carries X-RateLimit-Reset, not Retry-After: the poll waits it out and goes on.
TEST_F(DatadogTest, A429IsRetriedAfterTheRateLimitReset) {
  datadog_.SetGroup(kMonitor, "host:web-1,env:prod", "Warn");
  const std::string config = WriteConfig("{max_attempts: 2, initial_backoff: 10ms, budget: 5s}");
  datadog_.FailNext(429, 1, "1");
  auto decided = Poll(config);
  EXPECT_EQ(decided["dd:4711:web-1"]["decision"], "notify") << last_err_;
  EXPECT_EQ(datadog_.Targets().size(), 2U);

  // A reset past the poll's retry budget is not waited for (nor retried early, which Datadog
  // would refuse again): the poll fails and holds the incident.
  datadog_.SetGroup(kMonitor, "host:web-1,env:prod", "OK");
  datadog_.FailNext(429, 1, "30");
  decided = Poll(config, /*expected_exit=*/1);
  EXPECT_EQ(decided["dd:4711:web-1"]["decision"], "unknown") << json(decided).dump();
  EXPECT_NE(last_err_.find("HTTP 429"), std::string::npos) << last_err_;
  EXPECT_EQ(datadog_.Targets().size(), 3U);
}

// Schema drift fails loudly: the poll names the field and holds the incident, and `quell schema
// check` reports it.
TEST_F(DatadogTest, ADriftedAnswerFailsThePollAndTheSchemaCheck) {
  datadog_.SetGroup(kMonitor, "host:web-1,env:prod", "Alert");
  const std::string config = WriteConfig();
  ASSERT_EQ(Poll(config)["dd:4711:web-1"]["decision"], "notify");
  auto check = Quell({"schema", "check", "-c", config});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ok against " + datadog_.BaseUrl()), std::string::npos) << check.out;

  datadog_.RenameGroupStatus(true);
  datadog_.SetGroup(kMonitor, "host:web-1,env:prod", "OK");
  auto decided = Poll(config, /*expected_exit=*/1);
  EXPECT_EQ(decided["dd:4711:web-1"]["decision"], "unknown") << json(decided).dump();
  EXPECT_NE(last_err_.find("status"), std::string::npos) << last_err_;
  check = Quell({"schema", "check", "-c", config});
  EXPECT_NE(check.exit_code, 0) << check.out;
  EXPECT_NE(check.out.find(".status: missing"), std::string::npos) << check.out;
}

TEST_F(DatadogTest, ConfigCheckAcceptsTheExampleAndNamesWhatIsMissing) {
  auto r =
      Quell({"config", "check", "-c", testing::SourcePath("examples/datadog.yaml"), "--offline"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ok: 0 error-group, 1 datadog_monitors (datadoghq.com), 0 metric and 0 "
                       "push conditions"),
            std::string::npos)
      << r.out;

  const auto path = dir_ / "no-section.yaml";
  std::ofstream(path) << "conditions:\n"
                      << "  - {name: dd, type: datadog_monitors, monitor_tags: [\"team:a\"]}\n";
  r = Quell({"config", "check", "-c", path.string(), "--offline"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find(path.string() + ":2:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("needs a datadog: section"), std::string::npos) << r.out;

  unsetenv("DD_APP_KEY");  // NOLINT(concurrency-mt-unsafe)
  r = Quell({"config", "check", "-c", WriteConfig(), "--offline"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("datadog.app_key_env: DD_APP_KEY is not set"), std::string::npos) << r.out;
}

}  // namespace datadog_e2e_test
}  // namespace quell
