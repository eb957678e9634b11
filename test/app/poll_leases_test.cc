#include "quell/app/poll_leases.h"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace quell::app {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

TEST(PollLeases, NamesAreStable) {
  EXPECT_EQ(PollLeaseName("infrai error groups", minutes(1)), "poll/infrai-error-groups/1m0s");
  EXPECT_EQ(PollLeaseName("prometheus", seconds(30)), "poll/prometheus/30s");
  EXPECT_EQ(ShardLeaseName("infrai error groups", minutes(1), "checkout", 0, 4),
            "poll/infrai-error-groups/1m0s/checkout/shard-1-of-4");
}

TEST(PollLeases, ShardOfIsFnv1aModuloShards) {
  // FNV-1a 64 of "" is the offset basis; of "a" the published test vector af63dc4c8601ec8c.
  EXPECT_EQ(ShardOf("", 1000), 0xcbf29ce484222325ULL % 1000);
  EXPECT_EQ(ShardOf("a", 1000), 0xaf63dc4c8601ec8cULL % 1000);
  EXPECT_EQ(ShardOf("anything", 1), 0u);
}

TEST(PollLeases, ShardsSpreadKeys) {
  std::array<int, 4> counts{};
  for (int i = 0; i < 4000; ++i) ++counts[ShardOf("tenant-" + std::to_string(i), 4)];
  for (const int n : counts) {
    EXPECT_GT(n, 800);
    EXPECT_LT(n, 1200);
  }
}

}  // namespace
}  // namespace quell::app
