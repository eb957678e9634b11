// Operator actions in `quell replay -c FILE --messages`: ack, resolve and silence lines applied
// at their virtual time through the real binary, as a user tries them on recorded history.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "replay_fixture.h"
#include "run_process.h"
#include "test_paths.h"

namespace {

using nlohmann::json;
using quell::testing::ProcessResult;
using quell::testing::RunProcess;

class ReplayActionsE2eTest : public quell::testing::ReplayDirTest {
 protected:
  void SetUp() override {
    ReplayDirTest::SetUp();
    config_ = WriteConfig(R"(defaults:
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
)");
  }

  ProcessResult Messages(const std::string& input) {
    return RunProcess({quell::testing::QuellBinary(), "replay", "-c", config_, "--messages"},
                      input);
  }
  static std::vector<std::string> Transitions(const std::vector<json>& lines) {
    std::vector<std::string> out;
    for (const json& line : lines) out.push_back(line["transition"].get<std::string>());
    return out;
  }

  std::string config_;
};

const std::string kKey = "t1:model-answer";

std::string Obs(const std::string& at, const char* unhealthy, const std::string& key = kKey) {
  return R"({"at":")" + at + R"(","key":")" + key + R"(","unhealthy":)" + unhealthy +
         R"(,"condition":"model-answer"})" + "\n";
}
std::string Action(const std::string& at, const std::string& rest, const std::string& key = kKey) {
  return R"({"at":")" + at + R"(","key":")" + key + R"(",)" + rest + "}\n";
}

// 09:00 opens; the 5m cooldown would renotify at 09:05; healthy at 09:06 and 09:07 resolves.
std::string Outage(const std::string& inserted_after_open) {
  return Obs("2026-12-01T09:00:00Z", "true") + inserted_after_open +
         Obs("2026-12-01T09:03:00Z", "true") + Obs("2026-12-01T09:05:00Z", "true") +
         Obs("2026-12-01T09:06:00Z", "false") + Obs("2026-12-01T09:07:00Z", "false");
}

TEST_F(ReplayActionsE2eTest, AnAckBeforeTheCooldownStopsTheRenotify) {
  const ProcessResult without = Messages(Outage(""));
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_EQ(Transitions(Lines(without.out)),
            (std::vector<std::string>{"open", "renotify", "resolve"}));

  const ProcessResult acked =
      Messages(Outage(Action("2026-12-01T09:02:00Z", R"("action":"ack","by":"ana")")));
  ASSERT_EQ(acked.exit_code, 0) << acked.err;
  EXPECT_EQ(acked.err, "");
  EXPECT_EQ(Transitions(Lines(acked.out)), (std::vector<std::string>{"open", "resolve"}))
      << acked.out;
}

TEST_F(ReplayActionsE2eTest, ASilenceDuringTheOutageSendsNothingItCovers) {
  // A glob silence from 09:04 to 09:06:30 covers the 09:05 renotify, not the 09:07 resolve.
  const ProcessResult r =
      Messages(Outage(Action("2026-12-01T09:04:00Z",
                             R"("action":"silence","by":"ana","until":"2026-12-01T09:06:30Z",)"
                             R"("reason":"deploy")",
                             "t1:*")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> lines = Lines(r.out);
  EXPECT_EQ(Transitions(lines), (std::vector<std::string>{"open", "resolve"})) << r.out;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1]["at"], "2026-12-01T09:07:00Z");
}

// Two outages at once, keys "*:model-answer" (tenant `*`) and kKey: "match":"exact" silences
// the key spelled with `*` alone; without "match" the same key is a glob, as it always was.
TEST_F(ReplayActionsE2eTest, AnExactSilenceCoversItsKeyOnlyWhereTheGlobCoversAll) {
  const std::string star = "*:model-answer";
  auto input = [&](const std::string& match) {
    std::string in;
    for (const std::string at : {"2026-12-01T09:00:00Z", "2026-12-01T09:03:00Z"}) {
      in += Obs(at, "true", star) + Obs(at, "true");
    }
    in += Action("2026-12-01T09:04:00Z",
                 R"("action":"silence","by":"ana","until":"2026-12-01T09:06:30Z",)" + match +
                     R"("reason":"noisy")",
                 star);
    return in + Obs("2026-12-01T09:05:00Z", "true", star) + Obs("2026-12-01T09:05:00Z", "true");
  };
  auto renotified = [](const std::vector<json>& lines) {
    std::vector<std::string> keys;
    for (const json& line : lines) {
      if (line["transition"] == "renotify") keys.push_back(line["key"].get<std::string>());
    }
    return keys;
  };
  const ProcessResult exact = Messages(input(R"("match":"exact",)"));
  ASSERT_EQ(exact.exit_code, 0) << exact.err;
  EXPECT_EQ(renotified(Lines(exact.out)), std::vector<std::string>{kKey}) << exact.out;
  const ProcessResult glob = Messages(input(""));
  ASSERT_EQ(glob.exit_code, 0) << glob.err;
  EXPECT_TRUE(renotified(Lines(glob.out)).empty()) << glob.out;
}

TEST_F(ReplayActionsE2eTest, AResolveByHandSendsTheResolveAtItsTime) {
  // Resolved by hand at 09:01 for 1h: the source still fails at 09:03 and 09:05, and the hold
  // keeps the key resolved, so no renotify and no second open.
  const std::string input =
      Obs("2026-12-01T09:00:00Z", "true") +
      Action("2026-12-01T09:01:00Z", R"("action":"resolve","by":"ana","for":"1h")") +
      Obs("2026-12-01T09:03:00Z", "true") + Obs("2026-12-01T09:05:00Z", "true");
  const ProcessResult r = Messages(input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> lines = Lines(r.out);
  EXPECT_EQ(Transitions(lines), (std::vector<std::string>{"open", "resolve"})) << r.out;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1]["at"], "2026-12-01T09:01:00Z");
  EXPECT_EQ(lines[1]["key"], kKey);
}

TEST_F(ReplayActionsE2eTest, BadActionLinesNameTheirLine) {
  struct Case {
    std::string line;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {Action("2026-12-01T09:01:00Z", R"("action":"snooze","by":"ana")"),
       "stdin:2: field \"action\" must be ack, resolve or silence, not \"snooze\""},
      {Action("2026-12-01T09:01:00Z", R"("action":"ack")"), "stdin:2: missing field \"by\""},
      {R"({"at":"2026-12-01T09:01:00Z","action":"ack","by":"ana"})"
       "\n",
       "stdin:2: missing field \"key\""},
      {Action("2026-12-01T09:01:00Z", R"("action":"silence","by":"ana","until":"tomorrow")"),
       "stdin:2: field \"until\": "},
      {Action("2026-12-01T09:01:00Z",
              R"("action":"silence","by":"ana","until":"2026-12-01T09:00:00Z")"),
       "stdin:2: field \"until\" must be later than \"at\""},
      {Action("2026-12-01T09:01:00Z", R"("action":"silence","by":"ana")"),
       "stdin:2: missing field \"until\""},
      {Action("2026-12-01T09:01:00Z", R"("action":"ack","by":"ana","for":"1h")"),
       "stdin:2: field \"for\" belongs to resolve only"},
      {Action("2026-12-01T09:01:00Z", R"("action":"ack","by":"ana","match":"exact")"),
       "stdin:2: field \"match\" belongs to silence only"},
      {Action("2026-12-01T09:01:00Z",
              R"("action":"silence","by":"ana","until":"2026-12-01T10:00:00Z",)"
              R"("reason":"r","match":"fuzzy")"),
       "stdin:2: field \"match\" must be exact or glob, not \"fuzzy\""},
      // Well formed, but nothing is open under the key at its time.
      {Action("2026-12-01T09:01:00Z", R"("action":"ack","by":"ana")", "t2:model-answer"),
       "stdin:2: ack of \"t2:model-answer\": "},
  };
  for (const Case& c : cases) {
    const ProcessResult r = Messages(Obs("2026-12-01T09:00:00Z", "true") + c.line);
    EXPECT_EQ(r.exit_code, 1) << c.line;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.line << r.err;
  }
}

TEST_F(ReplayActionsE2eTest, PlainReplayRefusesActionsNamingTheLine) {
  const ProcessResult r =
      RunProcess({quell::testing::QuellBinary(), "replay"},
                 Obs("2026-12-01T09:00:00Z", "true") +
                     Action("2026-12-01T09:01:00Z", R"("action":"ack","by":"ana")"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("stdin:2: operator actions"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--messages"), std::string::npos) << r.err;
}

}  // namespace
