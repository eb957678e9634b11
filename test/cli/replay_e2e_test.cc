// `quell replay` as a user runs it: the real binary, stdin in, decision lines out.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.h"
#include "test_paths.h"

namespace {

using quell::testing::ProcessResult;
using quell::testing::RunProcess;

ProcessResult Replay(const std::string& input, std::vector<std::string> flags = {}) {
  std::vector<std::string> argv{quell::testing::QuellBinary(), "replay"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return RunProcess(argv, input);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Obs(const std::string& at, const std::string& key, const char* unhealthy) {
  return R"({"at":")" + at + R"(","key":")" + key + R"(","unhealthy":)" + unhealthy + "}\n";
}

TEST(ReplayE2eTest, SourceScenarioNotifiesOnceThenUpdates) {
  const std::string key = "tenant-42:model-answer:error-group-7";
  const ProcessResult r =
      Replay(Obs("2026-12-02T09:00:00Z", key, "true") + Obs("2026-12-02T09:01:00Z", key, "true") +
                 Obs("2026-12-02T09:02:00Z", key, "true"),
             {"--cooldown", "10m"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0],
            R"({"at":"2026-12-02T09:00:00Z","key":"tenant-42:model-answer:error-group-7",)"
            R"("decision":"notify","reason":"open","generation":1,"version":1})");
  EXPECT_NE(lines[1].find(R"("decision":"update_only")"), std::string::npos);
  EXPECT_NE(lines[2].find(R"("decision":"update_only")"), std::string::npos);
}

TEST(ReplayE2eTest, BundledExampleMatchesItsRecordedDecisions) {
  const ProcessResult r =
      Replay(ReadFile(quell::testing::SourcePath("examples/support-outage.jsonl")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(quell::testing::SourcePath("examples/support-outage.decisions.jsonl")));
}

TEST(ReplayE2eTest, FlagsChangeThePolicy) {
  const std::string key = "k";
  const std::string input = Obs("2026-12-02T09:00:00Z", key, "true") +
                            Obs("2026-12-02T09:01:30Z", key, "true") +
                            Obs("2026-12-02T09:02:00Z", key, "false");
  const auto lines = Lines(Replay(input, {"--cooldown", "90s", "--healthy-polls", "1"}).out);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_NE(lines[1].find(R"("reason":"cooldown_elapsed")"), std::string::npos);
  EXPECT_NE(lines[2].find(R"("decision":"resolve")"), std::string::npos);
}

TEST(ReplayE2eTest, KeysRoundTripArbitraryUtf8) {
  const std::string input =
      R"({"at":"2026-12-02T09:00:00Z","key":"t\"q\\b/s:ünï:日本","unhealthy":true})"
      "\n";
  const ProcessResult r = Replay(input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("key":"t\"q\\b/s:ünï:日本")"), std::string::npos) << r.out;
}

TEST(ReplayE2eTest, MalformedLineStopsWithItsNumberAndKeepsEarlierDecisions) {
  const std::string input = Obs("2026-12-02T09:00:00Z", "k", "true") +
                            R"({"at":"2026-12-02T09:01:00Z","key":"k","unhealthy":tru})"
                            "\n" +
                            Obs("2026-12-02T09:02:00Z", "k", "true");
  const ProcessResult r = Replay(input);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(Lines(r.out).size(), 1U);
  EXPECT_NE(r.err.find("stdin:2: bad JSON"), std::string::npos) << r.err;
}

TEST(ReplayE2eTest, EachKindOfBadLineIsNamed) {
  const std::pair<std::string, std::string> cases[] = {
      {R"({"key":"k","unhealthy":true})", "stdin:1: missing field \"at\""},
      {R"({"at":"2026-12-02T09:00:00Z","unhealthy":true})", "stdin:1: missing field \"key\""},
      {R"({"at":"2026-12-02T09:00:00Z","key":"k","unhealthy":1})",
       "stdin:1: field \"unhealthy\" must be true, false or null"},
      {R"({"at":"02/12/2026","key":"k","unhealthy":true})", "stdin:1: field \"at\": bad timestamp"},
      {R"(not json)", "stdin:1: bad JSON"},
  };
  for (const auto& [line, expected] : cases) {
    const ProcessResult r = Replay(line + "\n");
    EXPECT_EQ(r.exit_code, 1) << line;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  }
}

TEST(ReplayE2eTest, SkipInvalidReportsEachAndCountsThem) {
  const std::string input = "garbage\n" + Obs("2026-12-02T09:00:00Z", "k", "true") +
                            R"({"at":"x","key":"k","unhealthy":true})"
                            "\n" +
                            Obs("2026-12-02T09:01:00Z", "k", "true");
  const ProcessResult r = Replay(input, {"--skip-invalid"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(Lines(r.out).size(), 2U);
  EXPECT_NE(r.err.find("stdin:1:"), std::string::npos);
  EXPECT_NE(r.err.find("stdin:3:"), std::string::npos);
  EXPECT_NE(r.err.find("skipped 2 invalid lines"), std::string::npos) << r.err;
}

TEST(ReplayE2eTest, BadFlagsAreUsageErrors) {
  ProcessResult r = Replay("", {"--cooldown", "ten"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--cooldown: bad duration \"ten\""), std::string::npos) << r.err;
  r = Replay("", {"--healthy-polls", "0"});
  EXPECT_NE(r.exit_code, 0);
  r = Replay("", {"--flap-window", "40"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("flap window"), std::string::npos) << r.err;
}

TEST(ReplayE2eTest, HelpAndVersion) {
  ProcessResult r = RunProcess({quell::testing::QuellBinary(), "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("replay"), std::string::npos);
  r = RunProcess({quell::testing::QuellBinary(), "replay", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--cooldown"), std::string::npos);
  EXPECT_NE(r.out.find("--skip-invalid"), std::string::npos);
  r = RunProcess({quell::testing::QuellBinary(), "--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("quell 0.", 0), 0U) << r.out;
}

TEST(ReplayE2eTest, EmptyInputPrintsNothing) {
  const ProcessResult r = Replay("");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
}

}  // namespace
