// The operator commands as a user runs them: the real quell binary on a real SQLite file.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "run_process.h"
#include "test_paths.h"

namespace {

using quell::testing::ProcessResult;
using quell::testing::RunProcess;

class OperatorE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/quell-ops-e2e-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    store_url_ = "sqlite:" + dir_ + "/quell.db";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ProcessResult Quell(std::vector<std::string> args, const std::string& input = "") {
    std::vector<std::string> argv{quell::testing::QuellBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--store");
    argv.push_back(store_url_);
    return RunProcess(argv, input);
  }

  static std::string Obs(const std::string& at, const std::string& key) {
    return R"({"at":")" + at + R"(","key":")" + key + R"(","unhealthy":true,"condition":"c"})" +
           "\n";
  }

  std::string dir_;
  std::string store_url_;
};

TEST_F(OperatorE2eTest, AckSilenceAndDeadRetryFromTheCommandLine) {
  ProcessResult r = Quell(
      {"apply"}, Obs("2026-12-02T09:00:00Z", "acme:db") + Obs("2026-12-02T09:00:00Z", "beta:db"));
  ASSERT_EQ(r.exit_code, 0) << r.err;

  // Ack: recorded with who; an unknown key is exit 1 naming it.
  r = Quell({"incidents", "ack", "acme:db", "--by", "alice"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("acked acme:db (generation 1) by alice"), std::string::npos) << r.out;
  r = Quell({"incidents", "show", "acme:db", "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("acked_by":"alice")"), std::string::npos) << r.out;
  r = Quell({"incidents", "ack", "no:such:key"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no:such:key"), std::string::npos) << r.err;

  // Silence: bad input is exit 2 and stores nothing; a silenced resolve is recorded, not sent.
  r = Quell({"silence", "add", "beta:*", "--for", "2x", "--reason", "maintenance"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--for"), std::string::npos) << r.err;
  r = Quell({"silence", "add", "beta:*", "--for", "2h", "--reason", "maintenance", "--by", "bob"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("silence 1: keys matching beta:* until ", 0), 0u) << r.out;
  r = Quell({"silence", "list", "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("pattern":"beta:*")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("created_by":"bob")"), std::string::npos) << r.out;
  r = Quell({"incidents", "resolve", "beta:db", "--by", "bob"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("default silenced"), std::string::npos) << r.out;
  r = Quell({"outbox", "list", "--status", "silenced", "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("key":"beta:db")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("transition":"resolve")"), std::string::npos) << r.out;
  r = Quell({"silence", "remove", "one"});
  EXPECT_EQ(r.exit_code, 2);
  r = Quell({"silence", "remove", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Quell({"silence", "remove", "1"});
  EXPECT_EQ(r.exit_code, 1);

  // A dead row (acme:db's open, killed here as a dispatcher would) is retried by hand.
  std::string dead_key;
  {
    auto store = quell::sqlite::SqliteIncidentStore::Open(dir_ + "/quell.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    const auto later = std::chrono::time_point_cast<quell::core::Duration>(
        std::chrono::system_clock::now() + std::chrono::hours(1));
    auto claimed = (*store)->ClaimDue("test", later, std::chrono::seconds(60), 10);
    ASSERT_TRUE(claimed.ok());
    std::vector<quell::core::OutboxOutcome> dead;
    for (const auto& row : *claimed) {
      if (row.key != "acme:db") continue;
      dead_key = row.idempotency_key;
      quell::core::OutboxOutcome o;
      o.kind = quell::core::OutboxOutcome::Kind::kDead;
      o.idempotency_key = row.idempotency_key;
      o.error = "HTTP 410 gone";
      dead.push_back(o);
    }
    ASSERT_EQ(dead.size(), 1u);
    ASSERT_TRUE((*store)->RecordOutcomes("test", dead, later).ok());
  }
  r = Quell({"outbox", "dead", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(dead_key), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("HTTP 410 gone"), std::string::npos) << r.out;
  r = Quell({"outbox", "dead", "retry", dead_key});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("is pending, due now"), std::string::npos) << r.out;
  r = Quell({"outbox", "list", "--status", "pending", "--format", "jsonl"});
  EXPECT_NE(r.out.find(dead_key), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("attempts":0)"), std::string::npos) << r.out;
  r = Quell({"outbox", "dead", "retry", dead_key});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not dead"), std::string::npos) << r.err;
  r = Quell({"outbox", "dead", "drop", "q1-unknown"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("q1-unknown"), std::string::npos) << r.err;
}

// A key may hold `*` (a pushed alert labelled `*` has the key `*:*`): --key silences that key
// alone, where the same text as PATTERN (or --pattern) is a glob over every key.
TEST_F(OperatorE2eTest, SilenceAddKeySilencesThatKeyOnly) {
  ProcessResult r =
      Quell({"apply"}, Obs("2026-12-02T09:00:00Z", "*:*") + Obs("2026-12-02T09:00:00Z", "acme:db") +
                           Obs("2026-12-02T09:00:00Z", "beta:db"));
  ASSERT_EQ(r.exit_code, 0) << r.err;

  // Neither or both of --key and PATTERN: exit 2, nothing stored.
  r = Quell({"silence", "add", "--for", "1h", "--reason", "noisy"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--key"), std::string::npos) << r.err;
  r = Quell({"silence", "add", "a*", "--key", "*:*", "--for", "1h", "--reason", "noisy"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = Quell({"silence", "list", "--format", "jsonl"});
  EXPECT_EQ(r.out, "") << r.out;

  r = Quell({"silence", "add", "--key", "*:*", "--for", "1h", "--reason", "noisy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("silence 1: key *:* until ", 0), 0u) << r.out;
  r = Quell({"silence", "list", "--format", "jsonl"});
  EXPECT_NE(r.out.find(R"("match":"exact","key":"*:*")"), std::string::npos) << r.out;
  r = Quell({"silence", "list"});
  EXPECT_NE(r.out.find("MATCH"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exact"), std::string::npos) << r.out;

  r = Quell({"incidents", "resolve", "*:*"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("default silenced"), std::string::npos) << r.out;
  r = Quell({"incidents", "resolve", "acme:db"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("silenced"), std::string::npos) << r.out;

  // --pattern is PATTERN by name: a glob.
  r = Quell({"silence", "add", "--pattern", "b*", "--for", "1h", "--reason", "maintenance"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("silence 2: keys matching b* until ", 0), 0u) << r.out;
  r = Quell({"incidents", "resolve", "beta:db"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("default silenced"), std::string::npos) << r.out;
}

TEST_F(OperatorE2eTest, ABadStoreUrlIsExitTwo) {
  ProcessResult r =
      RunProcess({quell::testing::QuellBinary(), "silence", "list", "--store", "mysql://x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--store"), std::string::npos) << r.err;
}

}  // namespace
