// IncidentStore's counts for the metrics gauges, on SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using std::chrono::seconds;

class StoreCountsTest : public StoreTest {
 protected:
  // One poll of `condition`: each key unhealthy (true) or healthy (false).
  void Apply(const std::string& poll_id, const std::vector<std::pair<std::string, bool>>& keys,
             core::WallTime at, app::ApplyOptions options = {}) {
    jsonl::JsonPayloadEncoder encoder;
    NullSink sink;
    options.policy.healthy_polls_to_close = 1;
    app::PollApplier applier(store_->incidents(), encoder, options);
    std::vector<core::Observation> poll;
    for (const auto& [key, unhealthy] : keys) {
      core::Observation o;
      o.key = key;
      o.at = at;
      o.health = unhealthy ? core::Health::kUnhealthy : core::Health::kHealthy;
      o.condition = "errors";
      poll.push_back(o);
    }
    app::VectorObservationStream stream(poll);
    auto applied = applier.Apply(stream, poll_id, at, sink);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
  }

  const core::WallTime t0_ = OutboxEpoch();
};

TEST_P(StoreCountsTest, EmptyStoreCountsNothing) {
  auto open = store_->incidents().CountOpenIncidents();
  ASSERT_TRUE(open.ok()) << open.error().message;
  EXPECT_EQ(*open, 0U);
  auto rows = store_->incidents().CountOutboxByStatus();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_TRUE(rows->empty());
}

TEST_P(StoreCountsTest, CountsOpenIncidentsOverConditions) {
  Apply("p1", {{"a", true}, {"b", true}, {"c", true}}, t0_);
  Apply("p2", {{"b", false}}, t0_ + seconds(60));  // closes b at once (1 healthy poll)
  auto open = store_->incidents().CountOpenIncidents();
  ASSERT_TRUE(open.ok()) << open.error().message;
  EXPECT_EQ(*open, 2U);
}

TEST_P(StoreCountsTest, CountsOutboxRowsByStatusName) {
  app::ApplyOptions options;
  options.channels = {"ops", "mail"};
  Apply("p1", {{"a", true}, {"b", true}}, t0_, options);  // 4 pending
  app::ApplyOptions shadow;
  shadow.channels = {"ops"};
  shadow.shadow = true;
  Apply("p2", {{"c", true}}, t0_, shadow);  // 1 shadow
  std::optional<core::Store> dispatcher;
  Connect(dispatcher);
  auto claimed = dispatcher->outbox().ClaimDue("me", t0_ + seconds(1), seconds(60), 1);
  ASSERT_TRUE(claimed.ok()) << claimed.error().message;
  ASSERT_EQ(claimed->size(), 1U);

  auto rows = store_->incidents().CountOutboxByStatus();
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(*rows,
            (std::map<std::string, uint64_t>{{"in_flight", 1}, {"pending", 3}, {"shadow", 1}}));
}

INSTANTIATE_TEST_SUITE_P(Sqlite, StoreCountsTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, StoreCountsTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
