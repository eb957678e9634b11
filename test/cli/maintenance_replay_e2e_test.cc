// Recurring maintenance windows as a user meets them: the real binary, `quell replay -c FILE
// --messages`, a weekly Berlin window on both sides of the change to summer time.
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

namespace maintenance_replay_e2e_test {

using nlohmann::json;
using quell::testing::ProcessResult;
using quell::testing::RunProcess;

using MaintenanceReplayE2eTest = quell::testing::ReplayDirTest;

constexpr const char* kConfig = R"(defaults:
  cooldown: 1h
  healthy_polls_to_close: 1
  channels: [ops]
channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/never-contacted
    secret_env: QUELL_TEST_UNSET_SECRET
maintenance:
  - name: tuesday-deploys
    keys: "deploy:*"
    time_zone: Europe/Berlin
    weekdays: [tuesday]
    times: ["09:00-10:00"]
)";

std::string Obs(const std::string& at, const std::string& key, const char* unhealthy) {
  return R"({"at":")" + at + R"(","key":")" + key + R"(","unhealthy":)" + unhealthy + "}\n";
}

TEST_F(MaintenanceReplayE2eTest, AWeeklyBerlinWindowMutesOpensInsideItOnBothSidesOfTheChange) {
  // 09:00-10:00 Berlin is 08:00-09:00Z on 24 March (CET) and 07:00-08:00Z on 31 March (CEST).
  const std::string input = Obs("2026-03-24T08:30:00Z", "deploy:a", "true") +
                            Obs("2026-03-24T09:30:00Z", "deploy:b", "true") +
                            Obs("2026-03-31T07:30:00Z", "deploy:c", "true") +
                            Obs("2026-03-31T07:40:00Z", "db:main", "true") +
                            Obs("2026-03-31T08:30:00Z", "deploy:d", "true");
  const ProcessResult r = RunProcess(
      {quell::testing::QuellBinary(), "replay", "-c", WriteConfig(kConfig), "--messages"}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0]["key"], "deploy:b");
  EXPECT_EQ(lines[0]["at"], "2026-03-24T09:30:00Z");
  EXPECT_EQ(lines[1]["key"], "db:main");  // inside the hours, but not a key the window covers
  EXPECT_EQ(lines[2]["key"], "deploy:d");
  EXPECT_EQ(lines[2]["at"], "2026-03-31T08:30:00Z");
  for (const json& line : lines) EXPECT_EQ(line["transition"], "open");
}

TEST_F(MaintenanceReplayE2eTest, AnIncidentStillOpenWhenTheWindowEndsPagesThenOnce) {
  const std::string key = "deploy:a";
  const std::string input =
      Obs("2026-03-31T07:10:00Z", key, "true") + Obs("2026-03-31T07:40:00Z", key, "true") +
      Obs("2026-03-31T08:05:00Z", key, "true") + Obs("2026-03-31T08:07:00Z", key, "true") +
      Obs("2026-03-31T08:20:00Z", key, "false");
  const ProcessResult r = RunProcess(
      {quell::testing::QuellBinary(), "replay", "-c", WriteConfig(kConfig), "--messages"}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0]["transition"], "open");
  EXPECT_EQ(lines[0]["at"], "2026-03-31T08:05:00Z");
  EXPECT_EQ(lines[1]["transition"], "resolve");
  EXPECT_EQ(lines[1]["at"], "2026-03-31T08:20:00Z");
}

TEST_F(MaintenanceReplayE2eTest, AnUnknownZoneBadWeekdayOrRangeIsALocatedError) {
  const std::string config = R"(defaults:
  channels: [ops]
channels:
  - name: ops
    type: webhook
    url: http://127.0.0.1:9/never-contacted
    secret_env: QUELL_TEST_UNSET_SECRET
maintenance:
  - name: w
    time_zone: Europe/Atlantis
    weekdays: [tuesday, funday]
    times: ["09:00-09:00"]
)";
  const std::string path = WriteConfig(config);
  const ProcessResult r =
      RunProcess({quell::testing::QuellBinary(), "replay", "-c", path, "--messages"}, "");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(path + ":10:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Europe/Atlantis"), std::string::npos) << r.err;
  const ProcessResult check =
      RunProcess({quell::testing::QuellBinary(), "config", "check", "-c", path}, "");
  EXPECT_NE(check.exit_code, 0);
  EXPECT_NE((check.out + check.err).find("Europe/Atlantis"), std::string::npos);
  EXPECT_NE((check.out + check.err).find("funday"), std::string::npos) << check.out << check.err;
  EXPECT_NE((check.out + check.err).find("09:00-09:00"), std::string::npos)
      << check.out << check.err;
}

TEST_F(MaintenanceReplayE2eTest, ListShowsWhetherEachWindowIsOpenAndItsOccurrenceInUtcAndLocal) {
  const std::string path = WriteConfig(kConfig);
  const ProcessResult open = RunProcess({quell::testing::QuellBinary(), "maintenance", "list", "-c",
                                         path, "--at", "2026-03-31T07:30:00Z"},
                                        "");
  ASSERT_EQ(open.exit_code, 0) << open.err;
  std::vector<json> lines = Lines(open.out);
  ASSERT_EQ(lines.size(), 1u) << open.out;
  EXPECT_EQ(lines[0]["name"], "tuesday-deploys");
  // The window as configured, beside its state: the objects GET /v1/maintenance lists.
  EXPECT_EQ(lines[0]["keys"], "deploy:*");
  EXPECT_EQ(lines[0]["labels"], json::object());
  EXPECT_EQ(lines[0]["time_zone"], "Europe/Berlin");
  EXPECT_EQ(lines[0]["weekdays"], json({"tuesday"}));
  EXPECT_EQ(lines[0]["times"], json({"09:00-10:00"}));
  EXPECT_EQ(lines[0]["active"], true);
  EXPECT_EQ(lines[0]["start"], "2026-03-31T07:00:00Z");
  EXPECT_EQ(lines[0]["start_local"], "2026-03-31T09:00:00");
  EXPECT_EQ(lines[0]["end"], "2026-03-31T08:00:00Z");
  // Before the change the same local hours are an hour later in UTC.
  const ProcessResult next = RunProcess({quell::testing::QuellBinary(), "maintenance", "list", "-c",
                                         path, "--at", "2026-03-20T00:00:00Z"},
                                        "");
  ASSERT_EQ(next.exit_code, 0) << next.err;
  lines = Lines(next.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["active"], false);
  EXPECT_EQ(lines[0]["start"], "2026-03-24T08:00:00Z");
  EXPECT_EQ(lines[0]["start_local"], "2026-03-24T09:00:00");
}

// A renotify muted by the window is never sent: the first after the window counts the
// upstream's errors since the last message sent (the open's 3), not since the muted one's 8.
TEST_F(MaintenanceReplayE2eTest, TheRenotifyAfterTheWindowCountsFromTheLastMessageSent) {
  std::string config = kConfig;
  config.replace(config.find("    secret_env: QUELL_TEST_UNSET_SECRET\n"),
                 std::string("    secret_env: QUELL_TEST_UNSET_SECRET\n").size(),
                 "    secret_env: QUELL_TEST_UNSET_SECRET\n"
                 "    templates: {subject: \"{{transition}}: {{count_text}}\", body: b}\n");
  config.replace(config.find("cooldown: 1h"), 12, "cooldown: 10m");
  const std::string input =
      R"({"at":"2026-03-31T06:50:00Z","key":"deploy:a","unhealthy":true,"upstream_count":3})"
      "\n"
      R"({"at":"2026-03-31T07:05:00Z","key":"deploy:a","unhealthy":true,"upstream_count":8})"
      "\n"
      R"({"at":"2026-03-31T08:05:00Z","key":"deploy:a","unhealthy":true,"upstream_count":9})"
      "\n";
  const ProcessResult r = RunProcess(
      {quell::testing::QuellBinary(), "replay", "-c", WriteConfig(config), "--messages"}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0]["subject"], "open: 3 errors upstream");
  EXPECT_EQ(lines[1]["subject"], "renotify: 9 errors upstream, 6 since the last message");
}

}  // namespace maintenance_replay_e2e_test
