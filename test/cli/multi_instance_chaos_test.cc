// Three `quell run` processes on one PostgreSQL schema against quell-sim's scripted outage,
// with a seeded loop of kill -9 and SIGSTOP/SIGCONT, compared with one instance running the
// same script on a fresh schema: the receiver (which times out after accepting) sees each
// transition once in effect, the incidents and decisions are the same, the source is polled
// about once per interval in total, and a killed polling instance is replaced within the
// lease. QUELL_CHAOS_SEED picks the chaos (printed), QUELL_CHAOS_CYCLES lengthens the script
// (scripts/soak-instances).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "multi_instance_run.h"

namespace quell {
namespace {

using testing::Outcome;
using testing::RunScenario;
using testing::RunSpec;

uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
  return value != nullptr && *value != '\0' ? std::stoull(value) : fallback;
}

// "key#generation#transition" -> distinct idempotency keys the receiver acted on.
std::map<std::string, int> ReceivedTransitions(const Outcome& run) {
  std::map<std::string, int> seen;
  for (const auto& [key, entry] : run.received) {
    const auto& b = entry.body;
    if (!b.is_object() || b.value("kind", "") != "incident") continue;
    seen[b.value("key", "") + "#" + std::to_string(b.value("generation", 0)) + "#" +
         b.value("transition", "")] += 1;
  }
  return seen;
}

// The most listings in any `window` of the source's poll times.
size_t MostPollsIn(const Outcome& run, std::chrono::seconds window) {
  size_t most = 0;
  for (size_t i = 0, j = 0; j < run.polls.size(); ++j) {
    while (run.polls[j] - run.polls[i] >= window) ++i;
    most = std::max(most, j - i + 1);
  }
  return most;
}

void Print(const char* label, const Outcome& run) {
  std::cout << "[" << label << "] " << run.seconds << " s, " << run.polls.size()
            << " listings, at most " << MostPollsIn(run, std::chrono::seconds(6))
            << " in 6 s, lost polls " << run.lost_polls << ", receiver hung " << run.hung
            << " requests, " << run.received.size() << " keys\n";
  for (const std::string& what : run.chaos) std::cout << "  chaos: " << what << "\n";
  for (double s : run.failovers) std::cout << "  failover after kill -9: " << s << " s\n";
  for (const auto& [id, s] : run.healthy_runs) {
    std::cout << "  last failure -> resolve: " << s << " s (" << id << ")\n";
  }
  std::cout << std::flush;
}

TEST(MultiInstanceChaosTest, ThreeInstancesUnderChaosActLikeOne) {
  const char* pg = std::getenv("QUELL_TEST_PG_URL");  // NOLINT(concurrency-mt-unsafe)
  if (pg == nullptr) {
    const char* ci = std::getenv("CI");  // NOLINT(concurrency-mt-unsafe)
    if (ci != nullptr && std::string(ci) == "true") FAIL() << "CI=true but no PostgreSQL";
    GTEST_SKIP() << "QUELL_TEST_PG_URL is not set: the pg tests are not wanted here";
  }
  const uint64_t seed = EnvNumber(
      "QUELL_CHAOS_SEED",
      static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000);
  const int cycles = static_cast<int>(EnvNumber("QUELL_CHAOS_CYCLES", 1));
  std::cout << "chaos seed " << seed << " (QUELL_CHAOS_SEED=" << seed << " repeats it), " << cycles
            << " cycle(s)" << std::endl;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("quell-chaos-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  SCOPED_TRACE("seed " + std::to_string(seed) + "; the instances' logs are in " + dir.string());

  const Outcome single = RunScenario({"single", 1, false, seed, cycles, pg, dir});
  ASSERT_TRUE(single.error.empty()) << single.error;
  Print("one instance", single);
  const Outcome fleet = RunScenario({"fleet", 3, true, seed, cycles, pg, dir});
  ASSERT_TRUE(fleet.error.empty()) << fleet.error;
  Print("three instances", fleet);

  // (a) Each transition once in effect: one outbox row each, all sent, and one Idempotency-Key
  // each at the receiver, retried ones (it timed out after accepting) included.
  EXPECT_GT(fleet.hung, 0) << "the receiver never timed out after accepting";
  EXPECT_GT(std::count_if(fleet.received.begin(), fleet.received.end(),
                          [](const auto& entry) { return entry.second.attempts > 1; }),
            0)
      << "no message was retried after the receiver's timeout";
  EXPECT_EQ(fleet.refused, 0);
  EXPECT_TRUE(fleet.unsent.empty()) << fleet.unsent.front();
  EXPECT_EQ(ReceivedTransitions(fleet), fleet.transitions);
  for (const auto& [transition, n] : fleet.transitions) {
    EXPECT_EQ(n, 1) << transition << " was written " << n << " times";
  }
  EXPECT_EQ(fleet.transitions, single.transitions);
  int opens = 0, renotifies = 0, resolves = 0;
  for (const auto& [transition, n] : single.transitions) {
    opens += transition.ends_with("#open") ? n : 0;
    renotifies += transition.ends_with("#renotify") ? n : 0;
    resolves += transition.ends_with("#resolve") ? n : 0;
  }
  EXPECT_EQ(opens, 1 + 4 * cycles);  // the canary; a twice, b and c once per cycle
  EXPECT_EQ(renotifies, opens);      // one each (renotify_limit 1)
  EXPECT_EQ(resolves, 4 * cycles);

  // (b) The durable outcome equals one instance's: incidents, decisions, generations.
  EXPECT_EQ(fleet.incidents, single.incidents);
  EXPECT_EQ(fleet.decisions, single.decisions);

  // (c) About one listing per interval in total: three instances that each polled would fit
  // three times as many in a window. Every resolve came after three healthy polls that were
  // an interval apart, not three polls from three instances in one interval.
  EXPECT_EQ(static_cast<int64_t>(fleet.polls.size()), fleet.listings_logged);  // none unseen
  EXPECT_LE(MostPollsIn(fleet, std::chrono::seconds(6)), 8U);
  const double span =
      std::chrono::duration<double>(fleet.polls.back() - fleet.polls.front()).count();
  EXPECT_LE(static_cast<double>(fleet.polls.size()),
            span / static_cast<double>(testing::kInterval.count()) + 2 +
                static_cast<double>(fleet.chaos.size()));
  ASSERT_FALSE(fleet.healthy_runs.empty());
  for (const auto& [id, s] : fleet.healthy_runs) {
    EXPECT_GE(s, 0.75 * testing::kHealthyPollsToClose * testing::kInterval.count())
        << id << " resolved " << s << " s after its last failure";
  }

  // (d) After the polling instance is killed, another one polls within lease + interval.
  ASSERT_FALSE(fleet.failovers.empty());
  for (double s : fleet.failovers) {
    EXPECT_GE(s, 0);
    EXPECT_LE(s, static_cast<double>((testing::kLease + testing::kInterval).count()) + 2.0);
  }
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quell
