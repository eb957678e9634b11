#include "quell/core/conditions/aggregate.h"

#include <gtest/gtest.h>

#include <vector>

namespace quell::core {
namespace {

TEST(AggregateTest, ReducesByEveryAggregation) {
  const std::vector<double> v = {5, 1, 4, 2, 3};
  EXPECT_EQ(Aggregate(Aggregation::kLast, v), 3);
  EXPECT_EQ(Aggregate(Aggregation::kAvg, v), 3);
  EXPECT_EQ(Aggregate(Aggregation::kMin, v), 1);
  EXPECT_EQ(Aggregate(Aggregation::kMax, v), 5);
  EXPECT_EQ(Aggregate(Aggregation::kSum, v), 15);
  EXPECT_EQ(Aggregate(Aggregation::kCount, v), 5);
  EXPECT_EQ(Aggregate(Aggregation::kP50, v), 3);
  EXPECT_EQ(Aggregate(Aggregation::kP99, v), 5);
}

TEST(AggregateTest, PercentilesUseNearestRank) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  EXPECT_EQ(Aggregate(Aggregation::kP90, v), 90);
  EXPECT_EQ(Aggregate(Aggregation::kP95, v), 95);
  EXPECT_EQ(Aggregate(Aggregation::kP99, v), 99);
  EXPECT_EQ(Aggregate(Aggregation::kP50, std::vector<double>{7}), 7);
}

TEST(AggregateTest, EmptyInputHasNoValue) {
  EXPECT_FALSE(Aggregate(Aggregation::kCount, std::vector<double>{}).has_value());
}

TEST(AggregateTest, NamesRoundTrip) {
  for (const char* name :
       {"last", "avg", "min", "max", "sum", "count", "p50", "p90", "p95", "p99"}) {
    const auto parsed = ParseAggregation(name);
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_STREQ(AggregationName(*parsed), name);
  }
  EXPECT_FALSE(ParseAggregation("median").has_value());
}

}  // namespace
}  // namespace quell::core
