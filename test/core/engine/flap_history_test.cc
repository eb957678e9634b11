#include "quell/core/engine/flap_history.h"

#include <gtest/gtest.h>

namespace quell::core {
namespace {

TEST(FlapHistoryTest, SteadyStateHasNoChange) {
  FlapHistory history;
  for (int i = 0; i < 21; ++i) history.Push(true);
  EXPECT_DOUBLE_EQ(history.PercentStateChange(21), 0.0);
}

TEST(FlapHistoryTest, AlternatingStatesChangeEveryTime) {
  FlapHistory history;
  for (int i = 0; i < 21; ++i) history.Push(i % 2 == 0);
  EXPECT_NEAR(history.PercentStateChange(21), 100.0, 1e-9);
}

TEST(FlapHistoryTest, RecentChangesWeighMoreThanOldOnes) {
  FlapHistory recent;
  FlapHistory old;
  for (int i = 0; i < 20; ++i) recent.Push(true);
  recent.Push(false);  // newest change
  old.Push(false);
  for (int i = 0; i < 20; ++i) old.Push(true);  // oldest change
  EXPECT_NEAR(recent.PercentStateChange(21), 1.2 * 100 / 20, 1e-9);
  EXPECT_NEAR(old.PercentStateChange(21), 0.8 * 100 / 20, 1e-9);
}

TEST(FlapHistoryTest, ShortHistoryUnderReports) {
  FlapHistory history;
  history.Push(true);
  history.Push(false);
  EXPECT_LT(history.PercentStateChange(21), 10.0);
  EXPECT_EQ(history.count(), 2U);
}

TEST(FlapHistoryTest, KeepsAtMostThirtyTwoStates) {
  FlapHistory history;
  for (int i = 0; i < 100; ++i) history.Push(i % 2 == 0);
  EXPECT_EQ(history.count(), 32U);
  EXPECT_NEAR(history.PercentStateChange(32), 100.0, 1e-9);
}

}  // namespace
}  // namespace quell::core
