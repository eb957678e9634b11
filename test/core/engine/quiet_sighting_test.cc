#include "quell/core/engine/quiet_sighting.h"

#include <gtest/gtest.h>

#include <chrono>

#include "quell/core/engine/evaluate.h"

namespace quell::core {
namespace quiet_sighting_test {

using std::chrono::minutes;

constexpr WallTime kNine = WallTime{std::chrono::hours{24 * 20789 + 9}};  // 2026-12-02T09:00:00Z
constexpr Duration kRefresh = minutes{5};

class QuietSightingTest : public ::testing::Test {
 protected:
  Observation Failing(WallTime at, std::string evidence = "{\"e\":1}", uint64_t count = 7) {
    Observation o;
    o.key = "t1:a";
    o.at = at;
    o.health = Health::kUnhealthy;
    o.condition = "errors";
    o.evidence = std::move(evidence);
    o.labels = {{"tenant", "t1"}};
    o.upstream_count = count;
    return o;
  }
  // What a poller with quiet sightings does: the quiet decision, or Evaluate's.
  Decision See(const Observation& o) {
    if (IsQuietSighting(incident_, o, policy_, kRefresh))
      return QuietSightingDecision(incident_, o.at, policy_);
    return Evaluate(incident_, o, policy_);
  }

  Policy policy_;  // cooldown 10m
  Incident incident_;
};

TEST_F(QuietSightingTest, AnUnchangedFailureInsideTheCooldownChangesNothing) {
  ASSERT_EQ(See(Failing(kNine)).kind, DecisionKind::kNotify);
  const Decision quiet = See(Failing(kNine + minutes{1}));
  EXPECT_EQ(quiet.kind, DecisionKind::kUpdateOnly);
  EXPECT_FALSE(quiet.changed);
  EXPECT_EQ(quiet.version, 1U);
  EXPECT_EQ(quiet.generation, 1U);
  EXPECT_EQ(incident_.version, 1U);
  EXPECT_EQ(incident_.last_seen_at, kNine);
  EXPECT_EQ(incident_.event_count, 1U);
}

TEST_F(QuietSightingTest, ANewCountEvidenceOrLabelIsRecorded) {
  ASSERT_EQ(See(Failing(kNine)).kind, DecisionKind::kNotify);
  EXPECT_TRUE(See(Failing(kNine + minutes{1}, "{\"e\":1}", 8)).changed);
  EXPECT_TRUE(See(Failing(kNine + minutes{2}, "{\"e\":2}", 8)).changed);
  EXPECT_FALSE(See(Failing(kNine + minutes{3}, "{\"e\":2}", 8)).changed);
  Observation relabelled = Failing(kNine + minutes{4}, "{\"e\":2}", 8);
  relabelled.labels = {{"tenant", "t2"}};
  EXPECT_TRUE(See(relabelled).changed);
  // No evidence and no labels at all change nothing: quiet.
  Observation bare = Failing(kNine + minutes{5}, "", 8);
  bare.labels.clear();
  EXPECT_FALSE(See(bare).changed);
}

TEST_F(QuietSightingTest, TheRefreshIntervalAndTheCooldownEndAreRecorded) {
  ASSERT_EQ(See(Failing(kNine)).kind, DecisionKind::kNotify);
  EXPECT_FALSE(See(Failing(kNine + minutes{4})).changed);
  const Decision refreshed = See(Failing(kNine + minutes{5}));
  EXPECT_TRUE(refreshed.changed);
  EXPECT_EQ(refreshed.kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(incident_.last_seen_at, kNine + minutes{5});
  EXPECT_EQ(incident_.event_count, 2U);
  EXPECT_FALSE(See(Failing(kNine + minutes{9})).changed);
  EXPECT_EQ(See(Failing(kNine + minutes{10})).kind, DecisionKind::kNotify);
}

TEST_F(QuietSightingTest, NotAfterAHealthyPollWithFlapDampingOrForAStaleObservation) {
  ASSERT_EQ(See(Failing(kNine)).kind, DecisionKind::kNotify);
  Observation healthy = Failing(kNine + minutes{1});
  healthy.health = Health::kHealthy;
  EXPECT_FALSE(IsQuietSighting(incident_, healthy, policy_, kRefresh));
  ASSERT_EQ(See(healthy).kind, DecisionKind::kWaitForHealth);
  EXPECT_TRUE(See(Failing(kNine + minutes{2})).changed) << "the healthy streak goes back to 0";
  EXPECT_FALSE(See(Failing(kNine + minutes{3})).changed);
  EXPECT_EQ(See(Failing(kNine + minutes{2})).kind, DecisionKind::kStale);
  policy_.flap = FlapDamping{};
  EXPECT_TRUE(See(Failing(kNine + minutes{4})).changed) << "the flap history records every poll";
}

// A metric's or a monitor's sighting has no upstream count: its message says "failing in N
// polls" from event_count, so every one of its polls is recorded.
TEST_F(QuietSightingTest, ASightingWithoutAnUpstreamCountIsAlwaysRecorded) {
  Observation metric = Failing(kNine);
  metric.upstream_count.reset();
  ASSERT_EQ(See(metric).kind, DecisionKind::kNotify);
  metric.at = kNine + minutes{1};
  EXPECT_FALSE(IsQuietSighting(incident_, metric, policy_, kRefresh));
  EXPECT_TRUE(See(metric).changed);
  EXPECT_EQ(incident_.event_count, 2U);
}

// An acked incident past its cooldown records "acknowledged" once, then stays quiet until the
// refresh; a new ack reason, the renotify limit and an unack each are news.
TEST_F(QuietSightingTest, PastTheCooldownTheSameReasonForNoRenotifyIsRecordedOnce) {
  ASSERT_EQ(See(Failing(kNine)).kind, DecisionKind::kNotify);
  incident_.acked_at = kNine + minutes{2};
  incident_.acked_by = "alice";
  EXPECT_FALSE(See(Failing(kNine + minutes{3})).changed);  // inside the cooldown
  const Decision first = See(Failing(kNine + minutes{11}));
  EXPECT_TRUE(first.changed);
  EXPECT_EQ(first.reason, Reason::kAcknowledged);
  const Decision again = See(Failing(kNine + minutes{12}));
  EXPECT_FALSE(again.changed);
  EXPECT_EQ(again.kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(again.reason, Reason::kAcknowledged);
  EXPECT_TRUE(See(Failing(kNine + minutes{16})).changed);  // the refresh
  EXPECT_FALSE(See(Failing(kNine + minutes{17})).changed);

  // Acked after the last recorded sighting: that one said something else, so this is news.
  incident_.acked_at = kNine + minutes{16} + std::chrono::seconds{30};
  EXPECT_EQ(See(Failing(kNine + minutes{18})).reason, Reason::kAcknowledged);
  EXPECT_TRUE(IsQuietSighting(incident_, Failing(kNine + minutes{19}), policy_, kRefresh));

  // Unacked: the renotify is due at once, never quiet.
  incident_.acked_at.reset();
  const Decision renotify = See(Failing(kNine + minutes{19}));
  EXPECT_EQ(renotify.kind, DecisionKind::kNotify);
}

TEST_F(QuietSightingTest, AtTheRenotifyLimitTheReasonIsRecordedOnce) {
  policy_.renotify_limit = 0;
  ASSERT_EQ(See(Failing(kNine)).kind, DecisionKind::kNotify);
  EXPECT_EQ(See(Failing(kNine + minutes{10})).reason, Reason::kRenotifyLimit);
  const Decision quiet = See(Failing(kNine + minutes{11}));
  EXPECT_FALSE(quiet.changed);
  EXPECT_EQ(quiet.reason, Reason::kRenotifyLimit);
  // An ack now outranks the limit: a new reason, recorded.
  incident_.acked_at = kNine + minutes{11};
  EXPECT_FALSE(IsQuietSighting(incident_, Failing(kNine + minutes{12}), policy_, kRefresh));
}

TEST_F(QuietSightingTest, AResolvedOrNewKeyIsNeverQuiet) {
  EXPECT_FALSE(IsQuietSighting(incident_, Failing(kNine), policy_, kRefresh));
  ASSERT_EQ(See(Failing(kNine)).kind, DecisionKind::kNotify);
  incident_.status = IncidentStatus::kResolved;
  EXPECT_FALSE(IsQuietSighting(incident_, Failing(kNine + minutes{1}), policy_, kRefresh));
}

}  // namespace quiet_sighting_test
}  // namespace quell::core
