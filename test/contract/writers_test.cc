// The ugly cases, on both backends, with the real `quell apply` as child processes: concurrent
// writers and kill -9 at random points.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "quell/adapters/store_common/schema.h"
#include "test_support.h"

namespace quell::testing {
namespace {

std::string Key(int k) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "tenant-1:grp-%05d", k);
  return buf;
}

std::string Minute(int m) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "2026-12-02T%02d:%02d:00Z", 9 + m / 60, m % 60);
  return buf;
}

class WritersTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { QUELL_REQUIRE_BACKEND(GetParam()); }

  static std::vector<std::string> ApplyArgs(const TestStore& store, const std::string& poll_id,
                                            const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {QuellBinary(), "apply",     "--store",
                                     store.url(),   "--poll-id", poll_id};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }

  // Four polls over `keys` keys, each key once per poll in key order. Keys open, renotify after
  // the 2m cooldown, resolve after 2 healthy polls and re-open, so every transition kind occurs.
  std::vector<std::string> WritePolls(const TestStore& store, int keys) {
    std::vector<std::string> paths;
    for (int p = 0; p < 4; ++p) {
      std::string text;
      for (int k = 0; k < keys; ++k) {
        const int phase = (k % 4 + p) % 4;
        std::optional<bool> unhealthy = phase != 1 && phase != 2;
        if (k % 17 == 0) unhealthy = std::nullopt;
        text +=
            ObservationLine(Minute(p * 3), Key(k), unhealthy, R"({"p":)" + std::to_string(p) + "}");
      }
      paths.push_back(store.dir() + "/poll" + std::to_string(p) + ".jsonl");
      WriteFile(paths.back(), text);
    }
    return paths;
  }

  // The outbox as comparable text, one line per row without timestamps.
  static std::string OutboxFingerprint(const TestStore& store) {
    auto opened = store.Open();
    EXPECT_TRUE(opened.ok());
    std::string out;
    auto rows = opened->incidents().ListOutbox(std::nullopt);
    for (const auto& r : *rows) {
      out += r.idempotency_key + " " + r.key + " " + std::to_string(r.generation) + " " +
             std::to_string(r.version) + " " + core::TransitionName(r.transition) + " " +
             core::OutboxStatusName(r.status) + " " + r.payload + "\n";
    }
    return out;
  }

  static std::string IncidentFingerprint(const TestStore& store) {
    auto opened = store.Open();
    std::string out;
    auto incidents = opened->incidents().ListIncidents();
    EXPECT_TRUE(incidents.ok());
    for (const auto& in : *incidents) {
      out += in.key + " " + std::to_string(in.generation) + " " + std::to_string(in.version) + " " +
             core::IncidentStatusName(in.status) + " " + std::to_string(in.event_count) + "\n";
    }
    return out;
  }

  void ConcurrentWritersMatchOneWriter(int writers) {
    constexpr int kKeys = 400;
    TestStore single(GetParam());
    const auto polls = WritePolls(single, kKeys);
    const std::vector<std::string> flags = {"--cooldown", "2m",      "--healthy-polls",
                                            "2",          "--chunk", "64"};
    for (size_t p = 0; p < polls.size(); ++p) {
      auto r =
          RunProcess(ApplyArgs(single, "p" + std::to_string(p), flags), polls[p], single.dir());
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const std::string expected_outbox = OutboxFingerprint(single);
    const std::string expected_incidents = IncidentFingerprint(single);
    ASSERT_NE(expected_outbox.find(" resolve "), std::string::npos);
    ASSERT_NE(expected_outbox.find(" renotify "), std::string::npos);

    TestStore shared(GetParam());
    ASSERT_TRUE(shared.Open().ok());  // migrate once up front; racing migrations are tested below
    std::vector<std::thread> threads;
    std::vector<std::string> failures(static_cast<size_t>(writers));
    for (int w = 0; w < writers; ++w) {
      threads.emplace_back([&, w] {
        for (size_t p = 0; p < polls.size(); ++p) {
          auto r =
              RunProcess(ApplyArgs(shared, "p" + std::to_string(p), flags), polls[p], shared.dir());
          if (r.exit_code != 0) failures[static_cast<size_t>(w)] += r.err;
        }
      });
    }
    for (auto& t : threads) t.join();
    for (const auto& f : failures) EXPECT_EQ(f, "");
    EXPECT_EQ(OutboxFingerprint(shared), expected_outbox);
    EXPECT_EQ(IncidentFingerprint(shared), expected_incidents);
    EXPECT_EQ(shared.Query("SELECT count(*) FROM decisions"),
              single.Query("SELECT count(*) FROM decisions"));
    EXPECT_EQ(shared.Query("SELECT count(*) FROM polls"), "4");
  }
};

TEST_P(WritersTest, TwoConcurrentWritersInsertExactlyTheOutboxOfOne) {
  ConcurrentWritersMatchOneWriter(2);
}

TEST_P(WritersTest, EightConcurrentWritersInsertExactlyTheOutboxOfOne) {
  ConcurrentWritersMatchOneWriter(8);
}

TEST_P(WritersTest, WritersStartingTogetherMigrateOnce) {
  // Several rounds: the race to switch a new SQLite file to WAL lost about one start in 70
  // before the set-up was retried, so one round alone would rarely catch it.
  for (int round = 0; round < 8; ++round) {
    TestStore store(GetParam());
    const std::string input = store.dir() + "/one.jsonl";
    WriteFile(input, ObservationLine(Minute(0), "k", true));
    std::vector<pid_t> pids;
    for (int w = 0; w < 6; ++w) {
      const std::string base = store.dir() + "/m" + std::to_string(w);
      pids.push_back(StartProcess(ApplyArgs(store, "same"), input, base + ".out", base + ".err"));
    }
    for (int w = 0; w < 6; ++w) {
      const std::string base = store.dir() + "/m" + std::to_string(w);
      auto r = WaitProcess(pids[static_cast<size_t>(w)], base + ".out", base + ".err");
      EXPECT_EQ(r.exit_code, 0) << "round " << round << ": " << r.err;
    }
    EXPECT_EQ(store.Query("SELECT count(*) FROM schema_migrations"),
              std::to_string(store::Migrations().size()));
    EXPECT_EQ(store.Query("SELECT count(*) FROM outbox"), "1");
  }
}

// Every poll renotifies every key (cooldown 0), so each committed poll adds exactly one
// version and one outbox row per key: a half-applied batch, a lost transition or a twin shows
// up as a count that is off.
TEST_P(WritersTest, KillNineAtRandomPointsLeavesNoHalfBatchNoLossNoTwin) {
  constexpr int kKeys = 2000;
  constexpr int kKills = 25;
  TestStore store(GetParam());
  const std::vector<std::string> flags = {"--cooldown", "0s", "--chunk", "250"};
  auto poll_file = [&](int p) {
    const std::string path = store.dir() + "/kill" + std::to_string(p) + ".jsonl";
    std::string text;
    for (int k = 0; k < kKeys; ++k) text += ObservationLine(Minute(p), Key(k), true);
    WriteFile(path, text);
    return path;
  };
  auto run_clean = [&](int p) {
    auto r =
        RunProcess(ApplyArgs(store, "poll-" + std::to_string(p), flags), poll_file(p), store.dir());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  };
  // Poll 1 clean, timed: the kills land anywhere within a little over one apply.
  const auto started = std::chrono::steady_clock::now();
  run_clean(1);
  const auto one_apply = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - started);

  std::mt19937 random(12345);
  std::uniform_int_distribution<int64_t> delay(0, one_apply.count() * 6 / 5);
  int poll = 2;
  int kills = 0;
  int committed_while_killed = 0;
  const std::string keys = std::to_string(kKeys);
  for (int attempt = 0; kills < kKills && attempt < kKills * 4; ++attempt) {
    const std::string input = poll_file(poll);
    const std::string base = store.dir() + "/k" + std::to_string(attempt);
    const pid_t pid = StartProcess(ApplyArgs(store, "poll-" + std::to_string(poll), flags), input,
                                   base + ".out", base + ".err");
    std::this_thread::sleep_for(std::chrono::microseconds(delay(random)));
    kill(pid, SIGKILL);
    auto r = WaitProcess(pid, base + ".out", base + ".err");
    if (r.signal == SIGKILL) ++kills;

    const std::string v = std::to_string(poll);
    const bool committed =
        store.Query("SELECT count(*) FROM polls WHERE poll_id = 'poll-" + v + "'") == "1";
    SCOPED_TRACE("poll " + v + (committed ? " committed" : " not committed"));
    const std::string at_version =
        store.Query("SELECT count(*) FROM incidents WHERE version = " + v);
    const std::string behind =
        store.Query("SELECT count(*) FROM incidents WHERE version = " + std::to_string(poll - 1));
    const std::string outbox_v = store.Query("SELECT count(*) FROM outbox WHERE version = " + v);
    const std::string log_v = store.Query("SELECT count(*) FROM decisions WHERE version = " + v);
    if (committed) {
      EXPECT_EQ(at_version, keys);
      EXPECT_EQ(outbox_v, keys);
      EXPECT_EQ(log_v, keys);
      if (r.signal == SIGKILL) ++committed_while_killed;
    } else {
      EXPECT_EQ(behind, keys) << "a batch was half applied";
      EXPECT_EQ(outbox_v, "0");
      EXPECT_EQ(log_v, "0");
      run_clean(poll);  // the poller would retry the same poll
    }
    // No twin, no loss: one outbox row per key and version, nothing else.
    EXPECT_EQ(store.Query("SELECT count(*) FROM outbox"), std::to_string(kKeys * poll));
    EXPECT_EQ(store.Query("SELECT count(DISTINCT key || ':' || version) FROM outbox"),
              std::to_string(kKeys * poll));
    if (::testing::Test::HasFailure()) return;
    ++poll;
  }
  EXPECT_GE(kills, kKills);
  EXPECT_EQ(
      store.Query("SELECT count(*) FROM incidents WHERE version = " + std::to_string(poll - 1)),
      keys);
  std::printf("%d kills landed on %s; %d of them after the commit\n", kills,
              BackendName(GetParam()), committed_while_killed);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, WritersTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, WritersTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
