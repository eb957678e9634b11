#include "quell/core/ports/outbox_row.h"

#include <gtest/gtest.h>

namespace quell::core {
namespace {

TEST(OutboxIdempotencyKeyTest, IsStableAcrossBuildsAndMachines) {
  // Pinned: changing the derivation would let a new build insert twins of old rows.
  EXPECT_EQ(OutboxIdempotencyKey("a", 1, 1, "default"), "q1-56de6877befd4b882e25b836ca5c8e22");
}

TEST(OutboxIdempotencyKeyTest, DiffersInEachPart) {
  const std::string base = OutboxIdempotencyKey("k", 1, 2, "c");
  EXPECT_NE(base, OutboxIdempotencyKey("k2", 1, 2, "c"));
  EXPECT_NE(base, OutboxIdempotencyKey("k", 2, 2, "c"));
  EXPECT_NE(base, OutboxIdempotencyKey("k", 1, 3, "c"));
  EXPECT_NE(base, OutboxIdempotencyKey("k", 1, 2, "d"));
  EXPECT_EQ(base.size(), 35u);
}

TEST(OutboxIdempotencyKeyTest, CannotBeFooledBySeparatorsInsideParts) {
  EXPECT_NE(OutboxIdempotencyKey("a;1", 1, 1, "c"), OutboxIdempotencyKey("a", 11, 1, "c"));
  EXPECT_NE(OutboxIdempotencyKey("1:a;", 1, 1, ""), OutboxIdempotencyKey("", 1, 1, "1:a;"));
}

TEST(OutboxStatusTest, NamesRoundTrip) {
  for (auto s : {OutboxStatus::kPending, OutboxStatus::kInFlight, OutboxStatus::kSent,
                 OutboxStatus::kDead, OutboxStatus::kShadow, OutboxStatus::kSuperseded,
                 OutboxStatus::kMuted, OutboxStatus::kCancelled}) {
    auto parsed = ParseOutboxStatus(OutboxStatusName(s));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, s);
  }
  EXPECT_FALSE(ParseOutboxStatus("done").ok());
  EXPECT_EQ(*ParseTransitionName("renotify"), TransitionKind::kRenotify);
}

}  // namespace
}  // namespace quell::core
