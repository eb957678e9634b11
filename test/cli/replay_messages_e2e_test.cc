// `quell replay -c FILE --messages` as a user runs it: the real binary, a config, observations
// on stdin, one line per message the config's channels would be sent.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "quell/core/ports/outbox_row.h"
#include "replay_fixture.h"
#include "run_process.h"
#include "test_paths.h"

namespace {

using nlohmann::json;
using quell::testing::ProcessResult;
using quell::testing::RunProcess;

class ReplayMessagesE2eTest : public quell::testing::ReplayDirTest {
 protected:
  ProcessResult Messages(const std::string& config_path, const std::string& input) {
    return RunProcess({quell::testing::QuellBinary(), "replay", "-c", config_path, "--messages"},
                      input);
  }
};

// No source section at all: replay contacts nothing, so it needs none.
constexpr const char* kConfig = R"(defaults:
  cooldown: 10m
  healthy_polls_to_close: 2
  channels: [ops]
conditions:
  - name: model-answer
    type: error_groups
    key: "{tags.tenant}:model-answer"
    cooldown: 5m
    channels: [ops]
channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/never-contacted
    secret_env: QUELL_TEST_UNSET_SECRET
)";

std::string Obs(const std::string& at, const std::string& key, const char* unhealthy,
                const std::string& extra = R"(,"condition":"model-answer")") {
  return R"({"at":")" + at + R"(","key":")" + key + R"(","unhealthy":)" + unhealthy + extra + "}\n";
}

TEST_F(ReplayMessagesE2eTest, OneLinePerTransitionWithoutGrouping) {
  const std::string key = "t1:model-answer";
  const std::string input =
      Obs("2026-12-01T09:00:00Z", key, "true") + Obs("2026-12-01T09:03:00Z", key, "true") +
      Obs("2026-12-01T09:05:00Z", key, "true") + Obs("2026-12-01T09:06:00Z", key, "false") +
      Obs("2026-12-01T09:07:00Z", key, "false");
  const ProcessResult r = Messages(WriteConfig(kConfig), input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  // The condition's own cooldown (5m, not the defaults' 10m) makes the 09:05 renotify.
  const std::vector<std::string> at = {"2026-12-01T09:00:00Z", "2026-12-01T09:05:00Z",
                                       "2026-12-01T09:07:00Z"};
  const std::vector<std::string> transition = {"open", "renotify", "resolve"};
  const std::vector<uint64_t> version = {1, 3, 5};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(lines[i]["at"], at[i]) << lines[i];
    EXPECT_EQ(lines[i]["channel"], "ops");
    EXPECT_EQ(lines[i]["key"], key);
    EXPECT_EQ(lines[i]["transition"], transition[i]);
    EXPECT_EQ(lines[i]["members"], (json::array({{{"key", key}, {"transition", transition[i]}}})));
    EXPECT_EQ(lines[i]["idempotency_key"],
              quell::core::OutboxIdempotencyKey(key, 1, version[i], "ops"));
    EXPECT_TRUE(lines[i]["subject"].is_string() && !lines[i]["subject"].get<std::string>().empty());
    EXPECT_TRUE(lines[i]["severity"].is_string());
  }
}

TEST_F(ReplayMessagesE2eTest, AConditionTheConfigDoesNotNameTakesTheDefaults) {
  // No condition at all in the config, and the observations name none: the defaults' 10m
  // cooldown applies, so 09:05 renotifies nothing and 09:10 does.
  const std::string config = R"(defaults:
  cooldown: 10m
  channels: [ops]
channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/never-contacted
    secret_env: QUELL_TEST_UNSET_SECRET
)";
  const std::string key = "k";
  const ProcessResult r =
      Messages(WriteConfig(config), Obs("2026-12-01T09:00:00Z", key, "true", "") +
                                        Obs("2026-12-01T09:05:00Z", key, "true", "") +
                                        Obs("2026-12-01T09:10:00Z", key, "true", ""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0]["transition"], "open");
  EXPECT_EQ(lines[1]["transition"], "renotify");
  EXPECT_EQ(lines[1]["at"], "2026-12-01T09:10:00Z");
}

TEST_F(ReplayMessagesE2eTest, RoutesSendEachIncidentToItsFirstMatchingRoutesChannels) {
  const std::string config = R"(defaults:
  channels: [chat]
  route:
    - match: {severity: critical}
      channels: [pager]
    - match: {tenant: acme}
      channels: [vip]
conditions:
  - name: model-answer
    type: error_groups
  - name: db-down
    type: error_groups
    severity: critical
channels:
  - {name: chat, type: webhook, url: http://127.0.0.1:9/c, secret_env: QUELL_TEST_UNSET_SECRET}
  - {name: pager, type: webhook, url: http://127.0.0.1:9/p, secret_env: QUELL_TEST_UNSET_SECRET}
  - {name: vip, type: webhook, url: http://127.0.0.1:9/v, secret_env: QUELL_TEST_UNSET_SECRET}
)";
  const std::string at = "2026-12-01T09:00:00Z";
  const ProcessResult r =
      Messages(WriteConfig(config),
               Obs(at, "acme:db", "true", R"(,"condition":"db-down","labels":{"tenant":"acme"})") +
                   Obs(at, "acme:answer", "true",
                       R"(,"condition":"model-answer","labels":{"tenant":"acme"})") +
                   Obs(at, "beta:answer", "true",
                       R"(,"condition":"model-answer","labels":{"tenant":"beta"})"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> channel_of;
  for (const json& line : Lines(r.out)) channel_of[line["key"]] = line["channel"];
  EXPECT_EQ(channel_of, (std::map<std::string, std::string>{
                            {"acme:db", "pager"},       // critical: the first route wins
                            {"acme:answer", "vip"},     // tenant acme
                            {"beta:answer", "chat"}}))  // no route matches: the channels
      << r.out;
}

TEST_F(ReplayMessagesE2eTest, ABadLabelsValueNamesTheLine) {
  const std::string key = "t1:model-answer";
  const ProcessResult r =
      Messages(WriteConfig(kConfig),
               Obs("2026-12-01T09:00:00Z", key, "true") +
                   Obs("2026-12-01T09:01:00Z", key, "true", R"(,"labels":{"tenant":7})"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("stdin:2: field \"labels\": the value of \"tenant\" must be a string"),
            std::string::npos)
      << r.err;
}

TEST_F(ReplayMessagesE2eTest, ABadConfigIsAUsageError) {
  const ProcessResult r = Messages(WriteConfig("defaults:\n  unhealthy_polls_to_open: 0\n"), "");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("quell.yaml:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unhealthy_polls_to_open"), std::string::npos) << r.err;
}

TEST_F(ReplayMessagesE2eTest, MessagesNeedsAConfigAndTheConfigNeedsMessages) {
  EXPECT_EQ(RunProcess({quell::testing::QuellBinary(), "replay", "--messages"}, "").exit_code, 2);
  EXPECT_EQ(RunProcess({quell::testing::QuellBinary(), "replay", "-c", WriteConfig(kConfig)}, "")
                .exit_code,
            2);
  const ProcessResult flag = RunProcess({quell::testing::QuellBinary(), "replay", "-c",
                                         WriteConfig(kConfig), "--messages", "--cooldown", "1m"},
                                        "");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_NE(flag.err.find("--cooldown does not apply with --messages"), std::string::npos)
      << flag.err;
}

TEST_F(ReplayMessagesE2eTest, APendingPeriodKeepsASingleFailingPollQuiet) {
  std::string config = kConfig;
  config.replace(config.find("  channels: [ops]\n"), 0, "  unhealthy_polls_to_open: 2\n");
  const std::string key = "t1:model-answer";
  const ProcessResult r = Messages(
      WriteConfig(config),
      Obs("2026-12-01T09:00:00Z", key, "false") + Obs("2026-12-01T09:01:00Z", key, "true") +
          Obs("2026-12-01T09:02:00Z", key, "false") + Obs("2026-12-01T09:03:00Z", key, "true") +
          Obs("2026-12-01T09:04:00Z", key, "true"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0]["transition"], "open");
  EXPECT_EQ(lines[0]["at"], "2026-12-01T09:04:00Z");
}

// The issue's outage: 200 tenants fail at once, still fail past the cooldown, then recover.
// Without grouping that is 600 messages, one per key and transition.
TEST_F(ReplayMessagesE2eTest, TwoHundredKeyTraceWithoutGroupingIsSixHundredMessages) {
  std::ifstream in(quell::testing::SourcePath("test/data/two-hundred-keys/trace.jsonl"));
  std::stringstream trace;
  trace << in.rdbuf();
  ASSERT_FALSE(trace.str().empty());
  const ProcessResult r =
      Messages(quell::testing::SourcePath("test/data/two-hundred-keys/quell.yaml"), trace.str());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 600u);
  std::map<std::string, std::set<std::string>> by_transition;
  std::string previous_at;
  for (const json& line : lines) {
    by_transition[line["transition"]].insert(line["key"].get<std::string>());
    EXPECT_GE(line["at"].get<std::string>(), previous_at) << "not in time order";
    previous_at = line["at"];
  }
  EXPECT_EQ(by_transition["open"].size(), 200u);
  EXPECT_EQ(by_transition["renotify"].size(), 200u);
  EXPECT_EQ(by_transition["resolve"].size(), 200u);
  EXPECT_EQ(lines.front()["at"], "2026-12-01T09:00:00Z");
  EXPECT_EQ(lines[200]["at"], "2026-12-01T09:11:00Z");
  EXPECT_EQ(lines.back()["at"], "2026-12-01T09:14:00Z");
}

// The same outage on a channel grouped by condition: one message per step of the outage, each
// naming every key that took the step.
TEST_F(ReplayMessagesE2eTest, TwoHundredKeyTraceWithGroupingIsThreeMessages) {
  std::ifstream in(quell::testing::SourcePath("test/data/two-hundred-keys/trace.jsonl"));
  std::stringstream trace;
  trace << in.rdbuf();
  const ProcessResult r = Messages(
      quell::testing::SourcePath("test/data/two-hundred-keys/quell-grouped.yaml"), trace.str());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  const std::vector<std::string> steps = {"open", "renotify", "resolve"};
  const std::vector<std::string> due = {"2026-12-01T09:00:30Z", "2026-12-01T09:11:30Z",
                                        "2026-12-01T09:14:30Z"};
  std::set<std::string> idempotency_keys;
  for (size_t i = 0; i < lines.size(); ++i) {
    const json& line = lines[i];
    EXPECT_EQ(line["at"], due[i]);
    EXPECT_EQ(line["channel"], "ops");
    EXPECT_EQ(line["group_key"], "condition=model-answer");
    EXPECT_EQ(line["counts"]["members"], 200);
    EXPECT_EQ(line["counts"][steps[i]], 200);
    std::set<std::string> keys;
    for (const json& member : line["members"]) {
      EXPECT_EQ(member["transition"], steps[i]);
      keys.insert(member["key"].get<std::string>());
    }
    EXPECT_EQ(keys.size(), 200u) << "every key named once in the " << steps[i] << " message";
    EXPECT_TRUE(keys.contains("t001:model-answer") && keys.contains("t200:model-answer"));
    idempotency_keys.insert(line["idempotency_key"].get<std::string>());
  }
  EXPECT_EQ(idempotency_keys.size(), 3u);
}

}  // namespace
