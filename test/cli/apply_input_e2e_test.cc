// What `quell apply` and `quell replay` accept, as a producer would feed them: the real quell
// binary on a real SQLite file. The issue's hostile input: unredacted evidence in the outbox, a
// 10 MB key, and a line dated 9999-12-31 that made every later observation of its key stale.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "quell/core/text/time.h"
#include "run_process.h"
#include "test_paths.h"

namespace {

using quell::testing::ProcessResult;
using quell::testing::RunProcess;

class ApplyInputE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/quell-apply-input-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    store_url_ = "sqlite:" + (dir_ / "quell.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ProcessResult Quell(std::vector<std::string> args, const std::string& input = "") {
    std::vector<std::string> argv{quell::testing::QuellBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    if (args.front() != "replay") {
      argv.push_back("--store");
      argv.push_back(store_url_);
    }
    return RunProcess(argv, input);
  }

  static std::string Now() {
    std::string at;
    quell::core::AppendRfc3339(
        at, std::chrono::time_point_cast<quell::core::Duration>(std::chrono::system_clock::now()));
    return at;
  }

  static std::string Obs(const std::string& at, const std::string& key,
                         const std::string& evidence = "{}") {
    return R"({"at":")" + at + R"(","key":")" + key +
           R"(","unhealthy":true,"condition":"c","evidence":)" + evidence + "}\n";
  }

  std::string StoreBytes() const {
    std::string bytes;
    for (const char* name : {"quell.db", "quell.db-wal"}) {
      std::ifstream in(dir_ / name, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      bytes += text.str();
    }
    return bytes;
  }

  std::filesystem::path dir_;
  std::string store_url_;
};

TEST_F(ApplyInputE2eTest, EvidenceIsRedactedInTheStoredOutboxPayload) {
  const std::string evidence =
      R"({"message":"refund to card 4111 1111 1111 1111 for alice@example.com",)"
      R"("request":"Authorization: Bearer sk_live_51HqLyjWDarjtT1zdp7dcXYZ",)"
      R"("dsn":"postgres://app?password=hunter2xyz","password":"s3cretvalue"})";
  ProcessResult r = Quell({"apply"}, Obs(Now(), "acme:db", evidence));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Quell({"outbox", "list", "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("acme:db"), std::string::npos) << r.out;
  const std::string stored = StoreBytes();
  ASSERT_FALSE(stored.empty());
  for (const char* planted : {"4111 1111 1111 1111", "alice@example.com",
                              "sk_live_51HqLyjWDarjtT1zdp7dcXYZ", "hunter2xyz", "s3cretvalue"}) {
    EXPECT_EQ(stored.find(planted), std::string::npos) << planted << " reached the store";
    EXPECT_EQ(r.out.find(planted), std::string::npos) << planted << " in the outbox listing";
  }
}

TEST_F(ApplyInputE2eTest, ALineFromTheFarFutureIsRefusedAndDoesNotMakeLaterLinesStale) {
  ProcessResult r = Quell({"apply"}, Obs("9999-12-31T00:00:00Z", "acme:db"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("stdin:1: field \"at\" is 9999-12-31T00:00:00Z, more than 5m0s ahead"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("nothing was applied"), std::string::npos) << r.err;

  r = Quell({"apply"}, Obs(Now(), "acme:db"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("decision":"notify")"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("stale"), std::string::npos) << r.out;

  // replay's clock is its input, not this machine's: the same line replays (issue 31).
  r = Quell({"replay"}, Obs("9999-12-31T00:00:00Z", "acme:db"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("decision":"notify")"), std::string::npos) << r.out;
}

TEST_F(ApplyInputE2eTest, EachLimitRefusesTheLineNamingItAndNothingIsApplied) {
  const std::string now = Now();
  std::string deep;
  for (int i = 0; i < 20; ++i) deep += R"({"a":)";
  deep += "1" + std::string(20, '}');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {Obs(now, std::string(10000, 'k')), "field \"key\" is 10000 bytes, more than 512"},
      {Obs(now, "k", R"({"blob":")" + std::string(20000, 'x') + R"("})"),
       "field \"evidence\" is 20011 bytes, more than 16384 (limits.evidence_bytes)"},
      {Obs(now, "k", deep), "field \"evidence\" nests deeper than 16 levels"},
  };
  for (const auto& [line, message] : cases) {
    ProcessResult r = Quell({"apply"}, Obs(now, "fine:db") + line);
    EXPECT_EQ(r.exit_code, 1) << message;
    EXPECT_NE(r.err.find("stdin:2: " + message), std::string::npos) << r.err;
  }
  ProcessResult r = Quell({"incidents", "list", "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(ApplyInputE2eTest, TheConfigsLimitsSectionSetsTheLimits) {
  const auto config = dir_ / "quell.yaml";
  std::ofstream(config) << "store: " << store_url_ << R"(
limits:
  key_bytes: 16
  future_skew: 1h
conditions:
  - {name: c, type: error_groups, key: "{error_group_id}"}
)";
  ProcessResult r = RunProcess({quell::testing::QuellBinary(), "apply", "-c", config.string()},
                               Obs(Now(), "a-key-of-17-bytes"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("stdin:1: field \"key\" is 17 bytes, more than 16 (limits.key_bytes)"),
            std::string::npos)
      << r.err;

  std::ofstream bad(dir_ / "bad.yaml");
  bad << "limits:\n  key_bytes: 3\nconditions:\n  - {name: c, type: error_groups, key: "
         "\"{error_group_id}\"}\n";
  bad.close();
  r = RunProcess(
      {quell::testing::QuellBinary(), "config", "check", "-c", (dir_ / "bad.yaml").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("limits.key_bytes"), std::string::npos) << r.out << r.err;
}

}  // namespace
