// Steady polls on SQLite and PostgreSQL: a polled key whose failure goes on unchanged inside its
// cooldown (a quiet sighting, core/engine/quiet_sighting.h) writes no incident, no decision
// line and no key_groups pair; a change, or a sighting past the refresh interval, still does;
// and the healthy streak still resolves it.
#include <gtest/gtest.h>

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

class KindSink : public app::DecisionSink {
 public:
  void OnDecision(const core::Observation& /*observation*/,
                  const core::Decision& decision) override {
    kinds.push_back(decision.kind);
    changed.push_back(decision.changed);
  }
  void Reset() override {
    kinds.clear();
    changed.clear();
  }
  std::vector<DecisionKind> kinds;
  std::vector<bool> changed;
};

class QuietSightingContractTest : public StoreTest {
 protected:
  // One poll at `at` of key "t1:a" (group g1) with `health`, the group's count and evidence;
  // returns the decision.
  DecisionKind Poll(const std::string& at, core::Health health, uint64_t count = 7,
                    const std::string& evidence = R"({"title":"boom"})",
                    std::vector<core::KeyGroup> pairs = {{"t1:a", "g1"}}) {
    app::ApplyOptions options;
    options.sighting_refresh = std::chrono::minutes{5};  // cooldown: 10m (the default)
    if (health == core::Health::kUnhealthy) options.key_groups = std::move(pairs);
    app::PollApplier applier(store_->incidents(), encoder_, options);
    std::vector<core::Observation> poll(1);
    poll[0].key = "t1:a";
    poll[0].at = At(at);
    poll[0].health = health;
    poll[0].condition = "errors";
    if (health == core::Health::kUnhealthy) {
      poll[0].labels = {{"tenant", "t1"}};
      poll[0].upstream_count = count;
      poll[0].evidence = evidence;
    }
    app::VectorObservationStream stream(poll);
    KindSink sink;
    auto applied = applier.Apply(stream, "poll-" + at, At(at), sink);
    EXPECT_TRUE(applied.ok()) << applied.error().message;
    EXPECT_EQ(sink.kinds.size(), 1U);
    return sink.kinds.empty() ? DecisionKind::kUnknown : sink.kinds[0];
  }

  // What a poll could have written: the incident's version, its last_seen_at and event_count,
  // the decision lines, the key_groups pair's polls and last_seen_at.
  std::string Written() {
    return test_store_->Query("SELECT version FROM incidents") + " | " +
           test_store_->Query("SELECT last_seen_at FROM incidents") + " | " +
           test_store_->Query("SELECT event_count FROM incidents") + " | " +
           test_store_->Query("SELECT count(*) FROM decisions") + " | " +
           test_store_->Query("SELECT polls FROM key_groups WHERE group_id = 'g1'") + " | " +
           test_store_->Query("SELECT last_seen_at FROM key_groups WHERE group_id = 'g1'");
  }

  std::string Micros(const std::string& at) {
    return std::to_string(
        std::chrono::duration_cast<std::chrono::microseconds>(At(at).time_since_epoch()).count());
  }

  jsonl::JsonPayloadEncoder encoder_;
};

TEST_P(QuietSightingContractTest, AnUnchangedFailureInsideTheCooldownWritesNothing) {
  EXPECT_EQ(Poll("2026-12-02T09:00:00Z", core::Health::kUnhealthy), DecisionKind::kNotify);
  const std::string opened = Written();
  EXPECT_EQ(opened, "1 | " + Micros("2026-12-02T09:00:00Z") + " | 1 | 1 | 1 | " +
                        Micros("2026-12-02T09:00:00Z"));

  // A minute later, the same count and evidence: update_only, and not a row moves.
  EXPECT_EQ(Poll("2026-12-02T09:01:00Z", core::Health::kUnhealthy), DecisionKind::kUpdateOnly);
  EXPECT_EQ(Written(), opened);
  EXPECT_EQ(Poll("2026-12-02T09:02:00Z", core::Health::kUnhealthy), DecisionKind::kUpdateOnly);
  EXPECT_EQ(Written(), opened);
  // A group newly failing under the quiet key is still recorded, the known one left as it is.
  EXPECT_EQ(Poll("2026-12-02T09:03:00Z", core::Health::kUnhealthy, 7, R"({"title":"boom"})",
                 {{"t1:a", "g1"}, {"t1:a", "g2"}}),
            DecisionKind::kUpdateOnly);
  EXPECT_EQ(Written(), opened);
  EXPECT_EQ(test_store_->Query("SELECT polls FROM key_groups WHERE group_id = 'g2'"), "1");
  EXPECT_EQ(test_store_->Query("SELECT first_seen_at FROM key_groups WHERE group_id = 'g2'"),
            Micros("2026-12-02T09:03:00Z"));
  // Each poll still has its row, which counts the quiet sightings (the shadow report's).
  auto counts = store_->reports().CountDecisionsSince(At("2026-12-02T08:00:00Z"));
  ASSERT_TRUE(counts.ok()) << counts.error().message;
  EXPECT_EQ((*counts)[static_cast<size_t>(DecisionKind::kUpdateOnly)], 3U);
  EXPECT_EQ((*counts)[static_cast<size_t>(DecisionKind::kNotify)], 1U);
}

TEST_P(QuietSightingContractTest, AChangedFailureIsStillRecorded) {
  Poll("2026-12-02T09:00:00Z", core::Health::kUnhealthy);
  // The group's count moved: the incident, a decision line and the pair are written.
  EXPECT_EQ(Poll("2026-12-02T09:01:00Z", core::Health::kUnhealthy, 9), DecisionKind::kUpdateOnly);
  EXPECT_EQ(Written(), "2 | " + Micros("2026-12-02T09:01:00Z") + " | 2 | 2 | 2 | " +
                           Micros("2026-12-02T09:01:00Z"));
  // New evidence, same count: recorded too.
  EXPECT_EQ(Poll("2026-12-02T09:02:00Z", core::Health::kUnhealthy, 9, R"({"title":"other"})"),
            DecisionKind::kUpdateOnly);
  EXPECT_EQ(Written(), "3 | " + Micros("2026-12-02T09:02:00Z") + " | 3 | 3 | 3 | " +
                           Micros("2026-12-02T09:02:00Z"));
  EXPECT_EQ(test_store_->Query("SELECT decision FROM decisions WHERE version = 3"), "update_only");
}

TEST_P(QuietSightingContractTest, AnUnchangedFailureIsRecordedOncePerRefreshInterval) {
  Poll("2026-12-02T09:00:00Z", core::Health::kUnhealthy);
  Poll("2026-12-02T09:04:00Z", core::Health::kUnhealthy);  // quiet
  // Five minutes after the last recorded sighting: recorded, as before quiet sightings.
  EXPECT_EQ(Poll("2026-12-02T09:05:00Z", core::Health::kUnhealthy), DecisionKind::kUpdateOnly);
  EXPECT_EQ(Written(), "2 | " + Micros("2026-12-02T09:05:00Z") + " | 2 | 2 | 2 | " +
                           Micros("2026-12-02T09:05:00Z"));
  // The cooldown's end is never quiet: the renotify is written and sent.
  Poll("2026-12-02T09:09:00Z", core::Health::kUnhealthy);  // quiet
  EXPECT_EQ(Poll("2026-12-02T09:10:00Z", core::Health::kUnhealthy), DecisionKind::kNotify);
  EXPECT_EQ(test_store_->Query("SELECT count(*) FROM decisions"), "3");
  EXPECT_EQ(test_store_->Query("SELECT count(*) FROM outbox"), "2");
}

TEST_P(QuietSightingContractTest, TheHealthyStreakStillResolvesAfterQuietSightings) {
  Poll("2026-12-02T09:00:00Z", core::Health::kUnhealthy);
  Poll("2026-12-02T09:01:00Z", core::Health::kUnhealthy);  // quiet
  EXPECT_EQ(Poll("2026-12-02T09:02:00Z", core::Health::kHealthy), DecisionKind::kWaitForHealth);
  // Failing again after a healthy poll resets the streak: recorded, not quiet.
  EXPECT_EQ(Poll("2026-12-02T09:03:00Z", core::Health::kUnhealthy), DecisionKind::kUpdateOnly);
  EXPECT_EQ(test_store_->Query("SELECT healthy_streak FROM incidents"), "0");
  EXPECT_EQ(Poll("2026-12-02T09:04:00Z", core::Health::kHealthy), DecisionKind::kWaitForHealth);
  EXPECT_EQ(Poll("2026-12-02T09:05:00Z", core::Health::kHealthy), DecisionKind::kWaitForHealth);
  EXPECT_EQ(Poll("2026-12-02T09:06:00Z", core::Health::kHealthy), DecisionKind::kResolve);
  EXPECT_EQ(test_store_->Query("SELECT status FROM incidents"), "resolved");
}

INSTANTIATE_TEST_SUITE_P(Sqlite, QuietSightingContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, QuietSightingContractTest,
                         ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
