// `quell replay --messages --until T` runs the clock on past the last line and prints what
// falls due by T (an escalation tier, a group's wait); without it stderr says when the first
// message left out would have come. And replay's clock is the trace: a trace dated years ahead
// replays like any other (limits.future_skew guards the live inputs only).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "replay_fixture.h"
#include "run_process.h"
#include "test_paths.h"

namespace {

using nlohmann::json;
using quell::testing::ProcessResult;
using quell::testing::RunProcess;

const std::string kEscalation = quell::testing::SourcePath("test/data/escalation/quell.yaml");
const std::string kOpen =
    R"({"at":"2026-03-24T09:00:00Z","key":"acme:checkout","unhealthy":true,"condition":"checkout-errors"})"
    "\n";

class ReplayUntilE2eTest : public quell::testing::ReplayDirTest {
 protected:
  static ProcessResult Replay(const std::string& config, const std::string& trace,
                              std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {quell::testing::QuellBinary(), "replay", "-c", config,
                                     "--messages"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunProcess(args, trace);
  }
  // "<hh:mm:ss> <channel> <transition or group>" per message printed.
  static std::vector<std::string> Messages(const ProcessResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> out;
    for (const json& line : Lines(r.out)) {
      out.push_back(line["at"].get<std::string>().substr(11, 8) + " " +
                    line["channel"].get<std::string>() + " " +
                    line.value("transition", line.contains("group_key") ? "group" : "?"));
    }
    return out;
  }
};

TEST_F(ReplayUntilE2eTest, AnEscalationTierDueAfterTheLastLineIsPrintedWithUntil) {
  const ProcessResult cut = Replay(kEscalation, kOpen);
  EXPECT_EQ(Messages(cut), (std::vector<std::string>{"09:00:00 chat open"}));
  EXPECT_NE(cut.err.find("more messages fall due after the replay's end, the first at "
                         "2026-03-24T09:05:00Z; --until 2026-03-24T09:05:00Z"),
            std::string::npos)
      << cut.err;

  const ProcessResult until = Replay(kEscalation, kOpen, {"--until", "2026-03-24T10:00:00Z"});
  EXPECT_EQ(Messages(until),
            (std::vector<std::string>{"09:00:00 chat open", "09:05:00 pager open"}));
  EXPECT_EQ(until.err, "");

  // An earlier T prints up to it and still says what comes after.
  const ProcessResult early = Replay(kEscalation, kOpen, {"--until", "2026-03-24T09:04:59Z"});
  EXPECT_EQ(Messages(early), (std::vector<std::string>{"09:00:00 chat open"}));
  EXPECT_NE(early.err.find("the first at 2026-03-24T09:05:00Z"), std::string::npos) << early.err;
}

TEST_F(ReplayUntilE2eTest, AGroupMessageWaitingOutItsGroupWaitIsPrintedWithUntil) {
  const std::string config = WriteConfig(R"(conditions:
  - name: checkout-errors
    type: error_groups
    key: "{tags.tenant}:checkout"
channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/ops
    signing: off
    group_by: [condition]
    group_wait: 30s
    group_interval: 5m
defaults: {channels: [ops]}
)");
  const ProcessResult cut = Replay(config, kOpen);
  EXPECT_EQ(Messages(cut), std::vector<std::string>{});
  EXPECT_NE(cut.err.find("the first at 2026-03-24T09:00:30Z"), std::string::npos) << cut.err;
  const ProcessResult until = Replay(config, kOpen, {"--until", "2026-03-24T09:01:00Z"});
  EXPECT_EQ(Messages(until), (std::vector<std::string>{"09:00:30 ops group"}));
}

TEST_F(ReplayUntilE2eTest, ATraceDatedYearsAheadReplays) {
  const std::string future =
      R"({"at":"2099-01-01T00:00:00Z","key":"acme:checkout","unhealthy":true,"condition":"checkout-errors"})"
      "\n";
  const ProcessResult messages = Replay(kEscalation, future);
  EXPECT_EQ(Messages(messages), (std::vector<std::string>{"00:00:00 chat open"}));
  const ProcessResult decisions = RunProcess({quell::testing::QuellBinary(), "replay"}, future);
  ASSERT_EQ(decisions.exit_code, 0) << decisions.err;
  EXPECT_NE(decisions.out.find(R"("decision":"notify")"), std::string::npos) << decisions.out;
  // An action line dated ahead is read on the same clock.
  const ProcessResult acked = Replay(
      kEscalation,
      future + R"({"at":"2099-01-01T00:01:00Z","key":"acme:checkout","action":"ack","by":"ana"})" +
          "\n",
      {"--until", "2099-01-01T01:00:00Z"});
  EXPECT_EQ(Messages(acked), (std::vector<std::string>{"00:00:00 chat open"}));
}

TEST_F(ReplayUntilE2eTest, UntilIsATimeAndGoesWithMessages) {
  ProcessResult r = Replay(kEscalation, kOpen, {"--until", "tomorrow"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--until:"), std::string::npos) << r.err;
  r = RunProcess({quell::testing::QuellBinary(), "replay", "--until", "2026-03-24T10:00:00Z"},
                 kOpen);
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

}  // namespace
