#include "quell/app/backoff.h"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "quell/app/retry_budget.h"

namespace quell::app {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr uint64_t kMaxBits = std::numeric_limits<uint64_t>::max();

TEST(BackoffDelayTest, StaysWithinTheGrowingCeiling) {
  const RetryPolicy policy;  // 200ms, doubling, at most 10s
  std::mt19937_64 bits(42);
  for (uint32_t retry = 0; retry < 12; ++retry) {
    const core::Duration ceiling =
        std::min<core::Duration>(milliseconds{200} * (int64_t{1} << retry), seconds{10});
    for (int i = 0; i < 1000; ++i) {
      const core::Duration d = BackoffDelay(policy, retry, bits());
      ASSERT_GE(d, core::Duration::zero());
      ASSERT_LE(d, ceiling) << "retry " << retry;
    }
  }
}

TEST(BackoffDelayTest, ReachesBothEndsOfTheRange) {
  const RetryPolicy policy;
  // random_bits % (ceiling + 1): 0 gives no wait, ceiling itself gives the full ceiling.
  EXPECT_EQ(BackoffDelay(policy, 0, 0), core::Duration::zero());
  EXPECT_EQ(BackoffDelay(policy, 0, 200'000), milliseconds{200});
  EXPECT_EQ(BackoffDelay(policy, 2, 800'000), milliseconds{800});
  EXPECT_EQ(BackoffDelay(policy, 30, 10'000'000), seconds{10});
}

TEST(BackoffDelayTest, IsDeterministicForTheSameBits) {
  const RetryPolicy policy;
  EXPECT_EQ(BackoffDelay(policy, 3, 123456789), BackoffDelay(policy, 3, 123456789));
  EXPECT_NE(BackoffDelay(policy, 3, 123456789), BackoffDelay(policy, 3, 987654321));
}

TEST(BackoffDelayTest, SpreadsOverTheRange) {
  const RetryPolicy policy;
  std::mt19937_64 bits(7);
  int low = 0;
  for (int i = 0; i < 1000; ++i) low += BackoffDelay(policy, 0, bits()) < milliseconds{100};
  EXPECT_GT(low, 400);
  EXPECT_LT(low, 600);
}

TEST(BackoffDelayTest, SurvivesHugeExponentsAndOddPolicies) {
  RetryPolicy policy;
  EXPECT_LE(BackoffDelay(policy, std::numeric_limits<uint32_t>::max(), kMaxBits), seconds{10});
  policy.multiplier = std::numeric_limits<double>::infinity();
  EXPECT_LE(BackoffDelay(policy, 5, kMaxBits), seconds{10});
  policy.multiplier = std::numeric_limits<double>::quiet_NaN();  // read as "at the cap"
  EXPECT_LE(BackoffDelay(policy, 5, kMaxBits), seconds{10});
  policy = RetryPolicy{};
  policy.initial_backoff = core::Duration::zero();
  EXPECT_EQ(BackoffDelay(policy, 3, kMaxBits), core::Duration::zero());
}

TEST(RetryBudgetTest, ConsumesOnlyWhatFits) {
  RetryBudget budget(seconds{1});
  EXPECT_TRUE(budget.TryConsume(milliseconds{600}));
  EXPECT_FALSE(budget.TryConsume(milliseconds{600}));
  EXPECT_EQ(budget.remaining(), milliseconds{400});
  EXPECT_TRUE(budget.TryConsume(milliseconds{400}));
  EXPECT_EQ(budget.remaining(), core::Duration::zero());
  EXPECT_TRUE(budget.TryConsume(core::Duration::zero()));
  EXPECT_FALSE(budget.TryConsume(core::Duration{1}));
}

TEST(RetryBudgetTest, ThreadsTogetherNeverSpendMoreThanTheBudget) {
  RetryBudget budget(milliseconds{1000});
  std::atomic<int> granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) granted += budget.TryConsume(milliseconds{3});
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(granted.load(), 333);
  EXPECT_EQ(budget.remaining(), milliseconds{1});
}

}  // namespace
}  // namespace quell::app
