// Maintenance windows on SQLite and PostgreSQL: rows inside a window are stored as muted, and
// the open held back is written once when the window closes, whoever polls and however often.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/zones/date_zone_rules.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using core::OutboxStatus;

core::WallTime At(const char* text) { return *core::ParseRfc3339(text); }

class MaintenanceContractTest : public StoreTest {
 protected:
  // One poll observing `key` unhealthy at `at`, under a Tuesday 09:00-10:00 Berlin window.
  app::ApplySummary Poll(const std::string& key, core::WallTime at, const std::string& poll_id,
                         core::Health health = core::Health::kUnhealthy) {
    app::ApplyOptions options;
    options.policy.healthy_polls_to_close = 1;
    options.channels = {"slack", "email"};
    options.policy.cooldown = std::chrono::hours(2);
    core::MaintenanceWindow window;
    window.name = "tuesday-deploys";
    window.keys = "deploy:*";
    window.time_zone = "Europe/Berlin";
    window.weekdays[2] = true;
    window.times.push_back(*core::ParseTimeRange("09:00-10:00"));
    options.maintenance = {window};
    options.zones = &zones::SystemZoneRules();
    app::PollApplier applier(store_->incidents(), encoder_, options);
    core::Observation observation;
    observation.key = key;
    observation.condition = "deploys";
    observation.at = at;
    observation.health = health;
    const std::vector<core::Observation> poll = {observation};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied = applier.Apply(stream, poll_id, at, sink);
    EXPECT_TRUE(applied.ok()) << applied.error().message;
    return applied.ok() ? *applied : app::ApplySummary{};
  }
  std::vector<core::OutboxRow> Rows(const std::string& key) {
    std::vector<core::OutboxRow> out;
    const auto rows = store_->incidents().ListOutbox(std::nullopt);
    for (const core::OutboxRow& row : *rows) {
      if (row.key == key) out.push_back(row);
    }
    return out;
  }
  jsonl::JsonPayloadEncoder encoder_;
};

TEST_P(MaintenanceContractTest, AnOpenInsideTheWindowIsMutedAndPagedOnceWhenItCloses) {
  const std::string key = "deploy:api";
  EXPECT_EQ(Poll(key, At("2026-03-31T07:10:00Z"), "p1").outbox_muted, 2u);
  EXPECT_EQ(Poll(key, At("2026-03-31T07:50:00Z"), "p2").maintenance_opens, 0u);
  for (const core::OutboxRow& row : Rows(key)) EXPECT_EQ(row.status, OutboxStatus::kMuted);

  // The window closed at 08:00Z. Two pollers and a retried poll: one open per channel.
  EXPECT_EQ(Poll(key, At("2026-03-31T08:05:00Z"), "p3").maintenance_opens, 2u);
  EXPECT_EQ(Poll(key, At("2026-03-31T08:06:00Z"), "p4").maintenance_opens, 0u);
  EXPECT_EQ(Poll(key, At("2026-03-31T08:05:00Z"), "p3").maintenance_opens, 0u);
  size_t live = 0;
  for (const core::OutboxRow& row : Rows(key)) {
    if (row.status == OutboxStatus::kMuted) continue;
    ++live;
    EXPECT_EQ(row.status, OutboxStatus::kPending);
    EXPECT_EQ(row.transition, core::TransitionKind::kOpen);
    EXPECT_EQ(row.version, 0u);
    EXPECT_NE(row.payload.find(R"("opened_in_maintenance":"tuesday-deploys")"), std::string::npos)
        << row.payload;
  }
  EXPECT_EQ(live, 2u);
}

TEST_P(MaintenanceContractTest, AResolveAfterTheWindowOfAnOpenNeverSentIsCancelled) {
  const std::string key = "deploy:api";
  EXPECT_EQ(Poll(key, At("2026-03-31T07:10:00Z"), "p1").outbox_muted, 2u);
  // Healthy at the first poll after the window: no late open, and no resolve of an open that
  // no channel ever got.
  Poll(key, At("2026-03-31T08:05:00Z"), "p2", core::Health::kHealthy);
  size_t resolves = 0;
  for (const core::OutboxRow& row : Rows(key)) {
    if (row.transition != core::TransitionKind::kResolve) continue;
    ++resolves;
    EXPECT_EQ(row.status, OutboxStatus::kCancelled) << row.channel;
  }
  EXPECT_EQ(resolves, 2u);
}

TEST_P(MaintenanceContractTest, KeysTheWindowDoesNotCoverAreSentAsUsual) {
  EXPECT_EQ(Poll("db:main", At("2026-03-31T07:10:00Z"), "p1").outbox_muted, 0u);
  for (const core::OutboxRow& row : Rows("db:main")) EXPECT_EQ(row.status, OutboxStatus::kPending);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, MaintenanceContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, MaintenanceContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
