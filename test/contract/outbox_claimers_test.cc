// Several dispatcher processes on one outbox, on both backends: concurrent claimers never share
// a row, and a claimer killed with SIGKILL leaves its rows to the next once the lease expires.
// Each child is forked and opens its own connection; the parent holds none while forking, so
// no SQLite or libpq state crosses the fork.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "outbox_test_support.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using std::chrono::seconds;

// Runs `body` in a child that exits with its return value; the parent gets the pid.
pid_t Fork(const std::function<int()>& body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  return pid;
}

// The exit code of `pid`, or -signal when a signal ended it.
int Wait(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1000;
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return WEXITSTATUS(status);
}

void WriteAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n = read(fd, buf, sizeof buf); n > 0; n = read(fd, buf, sizeof buf)) {
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

class OutboxClaimersTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { QUELL_REQUIRE_BACKEND(GetParam()); }

  // Inserts the rows and closes the connection again before any fork.
  static void Seed(const TestStore& store, const std::vector<core::OutboxRow>& rows) {
    auto opened = store.Open();
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    ASSERT_EQ(InsertRows(opened->incidents(), rows), "");
  }
};

// Every claimer loops claim -> record sent until nothing is due. All claim at one instant with a
// lease far longer than the test, so a row claimed twice would show as claims 2 or as a key
// in two claimers' logs. A third of the keys have two versions, so claims race on the ordering
// guard too: the younger row becomes due only when its sibling's "sent" commits.
TEST_P(OutboxClaimersTest, ConcurrentClaimersEachRowHasExactlyOneOwner) {
  constexpr int kClaimers = 4;
  constexpr int kKeys = 1500;
  TestStore store(GetParam());
  std::vector<core::OutboxRow> rows;
  const core::WallTime now = OutboxEpoch();
  for (int k = 0; k < kKeys; ++k) {
    const std::string key = "key-" + std::to_string(k);
    rows.push_back(PendingRow(key, 1, 1, "c", now));
    if (k % 3 == 0) rows.push_back(PendingRow(key, 1, 2, "c", now));
  }
  Seed(store, rows);

  int gate[2];
  ASSERT_EQ(pipe(gate), 0);
  std::vector<pid_t> pids;
  for (int c = 0; c < kClaimers; ++c) {
    const std::string owner = "claimer-" + std::to_string(c);
    const std::string log = store.dir() + "/" + owner + ".log";
    pids.push_back(Fork([&, owner, log] {
      close(gate[1]);
      auto outbox = store.Open();
      if (!outbox) return 2;
      char byte = 0;
      (void)read(gate[0], &byte, 1);  // EOF when the parent opens the gate: all start at once
      std::ostringstream out;
      int conflicts = 0;
      for (;;) {
        auto claimed = outbox->outbox().ClaimDue(owner, now, std::chrono::hours(1), 7);
        if (!claimed) return 3;
        if (claimed->empty()) break;
        std::vector<core::OutboxOutcome> sent;
        for (const auto& r : *claimed) {
          out << r.idempotency_key << " " << r.claims << " " << r.lease_owner << "\n";
          core::OutboxOutcome o;
          o.idempotency_key = r.idempotency_key;
          o.remote_message_id = owner;
          sent.push_back(std::move(o));
        }
        auto recorded = outbox->outbox().RecordOutcomes(owner, sent, now);
        if (!recorded) return 4;
        for (const auto& s : *recorded) conflicts += s ? 0 : 1;
      }
      WriteFile(log, out.str());
      return conflicts == 0 ? 0 : 5;
    }));
  }
  close(gate[0]);
  close(gate[1]);
  for (pid_t pid : pids) EXPECT_EQ(Wait(pid), 0);

  std::map<std::string, std::string> owner_of;
  int claims = 0;
  for (int c = 0; c < kClaimers; ++c) {
    const std::string owner = "claimer-" + std::to_string(c);
    std::istringstream log(ReadFile(store.dir() + "/" + owner + ".log"));
    std::string key, leased_to;
    uint32_t times_claimed = 0;
    while (log >> key >> times_claimed >> leased_to) {
      ++claims;
      EXPECT_EQ(times_claimed, 1u) << key;
      EXPECT_EQ(leased_to, owner);
      EXPECT_TRUE(owner_of.emplace(key, owner).second)
          << key << " claimed by " << owner_of[key] << " and " << owner;
    }
  }
  EXPECT_EQ(claims, static_cast<int>(rows.size()));
  EXPECT_EQ(store.Query("SELECT count(*) FROM outbox WHERE status = 'sent'"),
            std::to_string(rows.size()));
  EXPECT_EQ(store.Query("SELECT count(*) FROM outbox WHERE attempts <> 1"), "0");
  std::map<std::string, int> per_owner;
  for (const auto& [key, owner] : owner_of) ++per_owner[owner];
  std::string spread;
  for (const auto& [owner, n] : per_owner) spread += " " + owner + "=" + std::to_string(n);
  std::printf("%d claims on %s:%s\n", claims, BackendName(GetParam()), spread.c_str());
}

TEST_P(OutboxClaimersTest, RowsOfAKilledClaimerAreReclaimedWithTheirKeysAfterTheLease) {
  TestStore store(GetParam());
  const core::WallTime now = OutboxEpoch();
  std::vector<core::OutboxRow> rows;
  rows.reserve(20);
  for (int k = 0; k < 20; ++k) rows.push_back(PendingRow("k" + std::to_string(k), 1, 1, "c", now));
  Seed(store, rows);

  int report[2];
  ASSERT_EQ(pipe(report), 0);
  const pid_t pid = Fork([&] {
    close(report[0]);
    auto outbox = store.Open();
    if (!outbox) return 2;
    auto claimed = outbox->outbox().ClaimDue("doomed", now, seconds(60), 12);
    if (!claimed) return 3;
    std::string keys;
    for (const auto& r : *claimed) keys += r.idempotency_key + "\n";
    WriteAll(report[1], keys);
    close(report[1]);
    for (;;) pause();  // "sending" when the kill lands
  });
  close(report[1]);
  const std::string doomed_keys = ReadAll(report[0]);  // EOF once the child has claimed
  close(report[0]);
  kill(pid, SIGKILL);
  EXPECT_EQ(Wait(pid), -SIGKILL);
  std::vector<std::string> expected;
  std::istringstream in(doomed_keys);
  for (std::string k; in >> k;) expected.push_back(k);
  ASSERT_EQ(expected.size(), 12u);

  auto outbox = store.Open();
  ASSERT_TRUE(outbox.ok()) << outbox.error().message;
  auto early = outbox->outbox().ClaimDue("heir", now + seconds(59), seconds(60), 100);
  ASSERT_TRUE(early.ok());
  EXPECT_EQ(early->size(), 8u) << "only the rows the dead claimer never took";
  auto late = outbox->outbox().ClaimDue("heir", now + seconds(60), seconds(60), 100);
  ASSERT_TRUE(late.ok()) << late.error().message;
  std::vector<std::string> reclaimed;
  for (const auto& r : *late) {
    reclaimed.push_back(r.idempotency_key);
    EXPECT_EQ(r.attempts, 0u) << "the killed claimer's lease cost no attempt";
    EXPECT_EQ(r.claims, 2u);
    EXPECT_EQ(r.lease_owner, "heir");
  }
  EXPECT_EQ(reclaimed, expected);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, OutboxClaimersTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, OutboxClaimersTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
