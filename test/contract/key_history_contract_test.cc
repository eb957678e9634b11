// One key's history as the incident detail reads it (OperatorStore::RecentDecisions and
// RecentOutbox), on SQLite and PostgreSQL: newest first, bounded, and only that key's.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/ports/operator_store.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using std::chrono::minutes;

class KeyHistoryContractTest : public StoreTest {
 protected:
  void Observe(const std::string& key, bool unhealthy, core::WallTime at) {
    app::ApplyOptions options;
    options.channels = {"slack", "email"};
    options.policy.healthy_polls_to_close = 2;
    app::PollApplier applier(store_->incidents(), encoder_, options);
    core::Observation observation;
    observation.key = key;
    observation.at = at;
    observation.health = unhealthy ? core::Health::kUnhealthy : core::Health::kHealthy;
    observation.condition = "c";
    const std::vector<core::Observation> poll = {observation};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied = applier.Apply(stream, "poll-" + core::FormatRfc3339(at), at, sink);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
  }

  jsonl::JsonPayloadEncoder encoder_;
  const core::WallTime t0_ = OutboxEpoch();
};

TEST_P(KeyHistoryContractTest, DecisionsOfOneKeyNewestFirstAndBounded) {
  Observe("acme:db", true, t0_);
  Observe("beta:db", true, t0_);
  Observe("acme:db", false, t0_ + minutes(1));
  Observe("acme:db", false, t0_ + minutes(2));

  auto all = store_->operators().RecentDecisions("acme:db", 10);
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_GE(all->size(), 2u);
  EXPECT_EQ(all->front().decision, "resolve");
  EXPECT_EQ(all->front().poll_id, "poll-" + core::FormatRfc3339(t0_ + minutes(2)));
  EXPECT_EQ(all->front().at, t0_ + minutes(2));
  EXPECT_EQ(all->back().decision, "notify");
  EXPECT_EQ(all->back().reason, "open");
  EXPECT_EQ(all->back().generation, 1u);
  EXPECT_EQ(all->back().version, 1u);
  for (size_t i = 1; i < all->size(); ++i) EXPECT_GT((*all)[i - 1].version, (*all)[i].version);

  auto newest = store_->operators().RecentDecisions("acme:db", 1);
  ASSERT_TRUE(newest.ok());
  ASSERT_EQ(newest->size(), 1u);
  EXPECT_EQ(newest->front().decision, "resolve");

  auto other = store_->operators().RecentDecisions("beta:db", 10);
  ASSERT_TRUE(other.ok());
  ASSERT_EQ(other->size(), 1u);
  EXPECT_EQ(other->front().decision, "notify");
  auto none = store_->operators().RecentDecisions("no:such:key", 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_P(KeyHistoryContractTest, OutboxRowsOfOneKeyNewestFirstThenByChannel) {
  Observe("acme:db", true, t0_);
  Observe("beta:db", true, t0_);
  Observe("acme:db", false, t0_ + minutes(1));
  Observe("acme:db", false, t0_ + minutes(2));

  auto rows = store_->operators().RecentOutbox("acme:db", 10);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0].transition, core::TransitionKind::kResolve);
  EXPECT_EQ((*rows)[0].channel, "email");
  EXPECT_EQ((*rows)[1].transition, core::TransitionKind::kResolve);
  EXPECT_EQ((*rows)[1].channel, "slack");
  EXPECT_EQ((*rows)[2].transition, core::TransitionKind::kOpen);
  EXPECT_EQ((*rows)[2].channel, "email");
  EXPECT_EQ((*rows)[3].channel, "slack");
  for (const auto& row : *rows) EXPECT_EQ(row.key, "acme:db");

  auto newest = store_->operators().RecentOutbox("acme:db", 1);
  ASSERT_TRUE(newest.ok());
  ASSERT_EQ(newest->size(), 1u);
  EXPECT_EQ(newest->front().idempotency_key, (*rows)[0].idempotency_key);
  auto none = store_->operators().RecentOutbox("no:such:key", 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

INSTANTIATE_TEST_SUITE_P(Sqlite, KeyHistoryContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, KeyHistoryContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
