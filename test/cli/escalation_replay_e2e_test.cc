// Escalation tiers through `quell replay -c FILE --messages`, with the config and traces a user
// would try by hand (test/data/escalation): an unacknowledged open climbs to the pager after 5
// minutes, an ack before then stops the climb, and the resolve reaches exactly the tiers paged.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "replay_fixture.h"
#include "run_process.h"
#include "test_paths.h"

namespace escalation_replay_e2e_test {

using nlohmann::json;
using quell::testing::ProcessResult;
using quell::testing::RunProcess;

const std::string kData = quell::testing::SourcePath("test/data/escalation/");

class EscalationReplayE2eTest : public quell::testing::ReplayDirTest {
 protected:
  // "<at> <channel> <transition>" per message printed for the trace `name`.
  static std::vector<std::string> Messages(const std::string& name) {
    std::ifstream in(kData + name);
    std::stringstream trace;
    trace << in.rdbuf();
    const ProcessResult r = RunProcess(
        {quell::testing::QuellBinary(), "replay", "-c", kData + "quell.yaml", "--messages"},
        trace.str());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::vector<std::string> out;
    for (const json& line : Lines(r.out)) {
      out.push_back(line["at"].get<std::string>().substr(11, 5) + " " +
                    line["channel"].get<std::string>() + " " +
                    line["transition"].get<std::string>());
    }
    return out;
  }
};

TEST_F(EscalationReplayE2eTest, AnUnacknowledgedOpenClimbsToThePagerAfterItsDelay) {
  EXPECT_EQ(Messages("unacked.jsonl"),
            (std::vector<std::string>{"09:00 chat open", "09:05 pager open", "09:09 chat resolve",
                                      "09:09 pager resolve"}));
}

TEST_F(EscalationReplayE2eTest, AnAckBeforeTheDelayStopsTheClimb) {
  EXPECT_EQ(Messages("acked.jsonl"),
            (std::vector<std::string>{"09:00 chat open", "09:09 chat resolve"}));
}

TEST_F(EscalationReplayE2eTest, AResolveBeforeTheDelayReachesOnlyTheTierPaged) {
  EXPECT_EQ(Messages("short.jsonl"),
            (std::vector<std::string>{"09:00 chat open", "09:03 chat resolve"}));
}

}  // namespace escalation_replay_e2e_test
