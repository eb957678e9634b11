// Inhibition as a user meets it: the real binary, `quell replay -c FILE --messages` over the
// example under test/data/inhibition (a provider outage holding one tenant's answer errors).
#include <gtest/gtest.h>

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

using InhibitionReplayE2eTest = quell::testing::ReplayDirTest;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kData = quell::testing::SourcePath("test/data/inhibition/");

TEST_F(InhibitionReplayE2eTest, HeldIncidentsPageOnceWhenTheInhibitorResolves) {
  const ProcessResult r = RunProcess(
      {quell::testing::QuellBinary(), "replay", "-c", kData + "quell.yaml", "--messages"},
      ReadFile(kData + "trace.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  // The provider's outage pages; acme's answers opened at the same instant and are held, while
  // globex's are not.
  EXPECT_EQ(lines[0]["key"], "acme:provider-down");
  EXPECT_EQ(lines[0]["transition"], "open");
  EXPECT_EQ(lines[1]["key"], "globex:answers");
  EXPECT_EQ(lines[1]["transition"], "open");
  EXPECT_EQ(lines[1]["at"], "2026-11-30T09:01:00Z");
  EXPECT_EQ(lines[2]["key"], "acme:provider-down");
  EXPECT_EQ(lines[2]["transition"], "resolve");
  // Still failing once the provider is back: its open, once, saying what held it and how long.
  EXPECT_EQ(lines[3]["key"], "acme:answers");
  EXPECT_EQ(lines[3]["transition"], "open");
  EXPECT_EQ(lines[3]["at"], "2026-11-30T09:31:00Z");
  EXPECT_EQ(lines[3]["subject"],
            "[error] answers opened: acme:answers (held behind acme:provider-down for 31m)");
  EXPECT_EQ(lines[4]["key"], "acme:answers");
  EXPECT_EQ(lines[4]["transition"], "resolve");
  // acme:search opened and recovered while held: nothing about it, ever.
  EXPECT_EQ(r.out.find("acme:search"), std::string::npos) << r.out;
}

TEST_F(InhibitionReplayE2eTest, AnInhibitionCycleIsRefusedByReplayAndConfigCheckAlike) {
  const std::string path = WriteConfig(R"(defaults:
  channels: [ops]
conditions:
  - name: provider-down
    type: error_groups
    inhibited_by: [{condition: answers}]
  - name: answers
    type: error_groups
    inhibited_by: [{condition: provider-down, equal: [tenant]}]
channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/never-contacted
    signing: off
)");
  const ProcessResult r =
      RunProcess({quell::testing::QuellBinary(), "replay", "-c", path, "--messages"}, "");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(path + ":9:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("inhibition cycle answers -> provider-down -> answers"), std::string::npos)
      << r.err;
  const ProcessResult check =
      RunProcess({quell::testing::QuellBinary(), "config", "check", "-c", path}, "");
  EXPECT_NE(check.exit_code, 0);
  EXPECT_NE((check.out + check.err).find(path + ":9:"), std::string::npos)
      << check.out << check.err;
  EXPECT_NE((check.out + check.err).find("inhibition cycle"), std::string::npos);
}

TEST_F(InhibitionReplayE2eTest, AnUnknownInhibitorIsALocatedError) {
  const std::string path = WriteConfig(R"(defaults:
  channels: [ops]
conditions:
  - name: answers
    type: error_groups
    inhibited_by: [{condition: provider-dwon}]
channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/never-contacted
    signing: off
)");
  const ProcessResult check =
      RunProcess({quell::testing::QuellBinary(), "config", "check", "-c", path}, "");
  EXPECT_NE(check.exit_code, 0);
  const std::string said = check.out + check.err;
  EXPECT_NE(said.find(path + ":6:"), std::string::npos) << said;
  EXPECT_NE(said.find("\"provider-dwon\", which is not a configured condition"), std::string::npos)
      << said;
}

}  // namespace
