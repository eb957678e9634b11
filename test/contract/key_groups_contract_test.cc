// The shadow report's store half, on SQLite and PostgreSQL: which error groups failed under
// which key, written in the poll's transaction, and the decision counts since a cutoff.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/ports/shadow_report_store.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using core::DecisionKind;

core::WallTime At(const std::string& text) { return *core::ParseRfc3339(text); }

class KeyGroupsContractTest : public StoreTest {
 protected:
  // One poll at `at`: `key` observed with `health`, and the given key groups recorded.
  void Poll(const std::string& at, const std::string& key, core::Health health,
            std::vector<core::KeyGroup> key_groups, size_t chunk = 5000) {
    app::ApplyOptions options;
    options.chunk_observations = chunk;
    options.key_groups = std::move(key_groups);
    app::PollApplier applier(store_->incidents(), encoder_, options);
    std::vector<core::Observation> poll;
    if (!key.empty()) {
      core::Observation& o = poll.emplace_back();
      o.key = key;
      o.at = At(at);
      o.health = health;
      o.condition = "errors";
    }
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied = applier.Apply(stream, "poll-" + at, At(at), sink);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
  }

  std::vector<core::KeyGroupRow> Rows(const std::string& since) {
    auto rows = store_->reports().KeyGroupsSince(At(since));
    EXPECT_TRUE(rows.ok()) << rows.error().message;
    return rows.ok() ? *rows : std::vector<core::KeyGroupRow>{};
  }

  jsonl::JsonPayloadEncoder encoder_;
};

TEST_P(KeyGroupsContractTest, RecordsEachPairOnceWithItsPollsAndTimes) {
  Poll("2026-12-02T09:00:00Z", "t1:a", core::Health::kUnhealthy,
       {{"t1:a", "g1"}, {"t1:a", "g2"}, {"t1:b", "g3"}});
  Poll("2026-12-02T09:01:00Z", "t1:a", core::Health::kUnhealthy, {{"t1:a", "g1"}});

  const auto rows = Rows("2026-12-02T00:00:00Z");
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0].key, "t1:a");
  EXPECT_EQ(rows[0].group_id, "g1");
  EXPECT_EQ(rows[0].polls, 2U);
  EXPECT_EQ(rows[0].first_seen_at, At("2026-12-02T09:00:00Z"));
  EXPECT_EQ(rows[0].last_seen_at, At("2026-12-02T09:01:00Z"));
  EXPECT_EQ(rows[1].group_id, "g2");
  EXPECT_EQ(rows[1].polls, 1U);
  EXPECT_EQ(rows[2].key, "t1:b");

  const auto recent = Rows("2026-12-02T09:01:00Z");
  ASSERT_EQ(recent.size(), 1U) << "the cutoff is on last_seen_at";
  EXPECT_EQ(recent[0].group_id, "g1");
}

TEST_P(KeyGroupsContractTest, ARolledBackTransactionRecordsNoPair) {
  {
    auto tx = store_->incidents().Begin();
    ASSERT_TRUE(tx.ok());
    const std::vector<core::KeyGroup> seen = {{"k", "g"}};
    ASSERT_TRUE((*tx)->RecordKeyGroups(seen, At("2026-12-02T09:00:00Z")).ok());
  }
  EXPECT_TRUE(Rows("2026-12-01T00:00:00Z").empty());
}

TEST_P(KeyGroupsContractTest, RecordsMorePairsThanOneChunkInSlices) {
  std::vector<core::KeyGroup> many;
  for (int i = 0; i < 12'345; ++i) {
    many.push_back({"k" + std::to_string(10'000 + i / 3), "g\"" + std::to_string(i)});
  }
  std::sort(many.begin(), many.end(), [](const core::KeyGroup& a, const core::KeyGroup& b) {
    return a.key != b.key ? a.key < b.key : a.group_id < b.group_id;
  });
  Poll("2026-12-02T09:00:00Z", "", core::Health::kUnhealthy, many, 5000);
  EXPECT_EQ(test_store_->Query("SELECT count(*) FROM key_groups"), "12345");
  const auto rows = Rows("2026-12-02T09:00:00Z");
  ASSERT_EQ(rows.size(), many.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].key, many[i].key) << i;
    ASSERT_EQ(rows[i].group_id, many[i].group_id) << i;
  }
}

TEST_P(KeyGroupsContractTest, PruningDeletesOnlyPairsLastSeenBeforeTheCutoff) {
  Poll("2026-12-02T09:00:00Z", "t1:a", core::Health::kUnhealthy, {{"t1:a", "g1"}, {"t1:a", "g2"}});
  Poll("2026-12-02T10:00:00Z", "t1:a", core::Health::kUnhealthy, {{"t1:a", "g2"}});
  {
    auto tx = store_->incidents().Begin();
    ASSERT_TRUE(tx.ok()) << tx.error().message;
    auto pruned = (*tx)->PruneKeyGroups(At("2026-12-02T09:30:00Z"));
    ASSERT_TRUE(pruned.ok()) << pruned.error().message;
    EXPECT_EQ(*pruned, 1U);
    // Uncommitted: a rolled-back prune deletes nothing.
  }
  EXPECT_EQ(Rows("2026-12-01T00:00:00Z").size(), 2U);
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok()) << tx.error().message;
  ASSERT_TRUE((*tx)->PruneKeyGroups(At("2026-12-02T09:30:00Z")).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  const auto rows = Rows("2026-12-01T00:00:00Z");
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].group_id, "g2");
  EXPECT_EQ(rows[0].polls, 2U);
}

TEST_P(KeyGroupsContractTest, CountsDecisionsByKindSinceTheCutoff) {
  // Default policy: cooldown 10m, 3 healthy polls to close.
  Poll("2026-12-02T09:00:00Z", "a", core::Health::kUnhealthy, {{"a", "g1"}});  // notify
  Poll("2026-12-02T09:01:00Z", "a", core::Health::kUnhealthy, {{"a", "g1"}});  // update_only
  Poll("2026-12-02T09:02:00Z", "a", core::Health::kHealthy, {});               // wait_for_health
  Poll("2026-12-02T09:03:00Z", "a", core::Health::kHealthy, {});               // wait_for_health
  Poll("2026-12-02T09:04:00Z", "a", core::Health::kHealthy, {});               // resolve

  auto all = store_->reports().CountDecisionsSince(At("2026-12-02T08:00:00Z"));
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ((*all)[static_cast<size_t>(DecisionKind::kNotify)], 1U);
  EXPECT_EQ((*all)[static_cast<size_t>(DecisionKind::kUpdateOnly)], 1U);
  EXPECT_EQ((*all)[static_cast<size_t>(DecisionKind::kWaitForHealth)], 2U);
  EXPECT_EQ((*all)[static_cast<size_t>(DecisionKind::kResolve)], 1U);

  auto late = store_->reports().CountDecisionsSince(At("2026-12-02T09:01:00Z"));
  ASSERT_TRUE(late.ok());
  EXPECT_EQ((*late)[static_cast<size_t>(DecisionKind::kNotify)], 0U);
  EXPECT_EQ((*late)[static_cast<size_t>(DecisionKind::kUpdateOnly)], 1U);
  EXPECT_EQ((*late)[static_cast<size_t>(DecisionKind::kResolve)], 1U);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, KeyGroupsContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, KeyGroupsContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
