#include "quell/core/engine/evaluate.h"

#include <gtest/gtest.h>

#include <chrono>

namespace quell::core {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const WallTime kNine = WallTime{std::chrono::hours{24 * 20789 + 9}};  // 2026-12-02T09:00:00Z

Observation Obs(Health health, WallTime at, std::string evidence = "") {
  return Observation{"tenant-42:model-answer:grp-7",
                     at,
                     health,
                     "errors",
                     std::move(evidence),
                     {},
                     {},
                     {},
                     false,
                     std::nullopt};
}

class IncidentMachineTest : public ::testing::Test {
 protected:
  Decision See(Health health, WallTime at, std::string evidence = "") {
    return Evaluate(incident_, Obs(health, at, std::move(evidence)), policy_);
  }
  Decision Fail(WallTime at) { return See(Health::kUnhealthy, at); }
  Decision Pass(WallTime at) { return See(Health::kHealthy, at); }

  Policy policy_;
  Incident incident_;
};

TEST_F(IncidentMachineTest, FirstFailureOpensAndNotifies) {
  const Decision d = Fail(kNine);
  EXPECT_EQ(d.kind, DecisionKind::kNotify);
  EXPECT_EQ(d.reason, Reason::kOpen);
  EXPECT_EQ(d.transition, TransitionKind::kOpen);
  EXPECT_EQ(d.generation, 1U);
  EXPECT_EQ(d.version, 1U);
  EXPECT_TRUE(d.changed);
  EXPECT_EQ(incident_.status, IncidentStatus::kOpen);
  EXPECT_EQ(incident_.key, "tenant-42:model-answer:grp-7");
  EXPECT_EQ(incident_.opened_at, kNine);
  EXPECT_EQ(incident_.first_seen_at, kNine);
  EXPECT_EQ(incident_.last_notified_at, kNine);
  EXPECT_EQ(incident_.event_count, 1U);
}

TEST_F(IncidentMachineTest, SourceScenarioNotifiesOnceInsideCooldown) {
  EXPECT_EQ(Fail(kNine).kind, DecisionKind::kNotify);
  const Decision second = Fail(kNine + minutes{1});
  const Decision third = Fail(kNine + minutes{2});
  EXPECT_EQ(second.kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(third.kind, DecisionKind::kUpdateOnly);
  EXPECT_FALSE(third.transition.has_value());
  EXPECT_EQ(incident_.event_count, 3U);
  EXPECT_EQ(incident_.last_seen_at, kNine + minutes{2});
  EXPECT_EQ(incident_.last_notified_at, kNine);
  EXPECT_EQ(third.version, 3U);
}

TEST_F(IncidentMachineTest, RenotifiesWhenCooldownExactlyElapsed) {
  Fail(kNine);
  EXPECT_EQ(Fail(kNine + minutes{10} - seconds{1}).kind, DecisionKind::kUpdateOnly);
  const Decision d = Fail(kNine + minutes{10});
  EXPECT_EQ(d.kind, DecisionKind::kNotify);
  EXPECT_EQ(d.reason, Reason::kCooldownElapsed);
  EXPECT_EQ(d.transition, TransitionKind::kRenotify);
  EXPECT_EQ(d.generation, 1U);
  EXPECT_EQ(incident_.last_notified_at, kNine + minutes{10});
  // The next cooldown counts from the renotify, not from the open.
  EXPECT_EQ(Fail(kNine + minutes{19}).kind, DecisionKind::kUpdateOnly);
}

TEST_F(IncidentMachineTest, ZeroCooldownNotifiesEveryFailure) {
  policy_.cooldown = Duration{0};
  Fail(kNine);
  EXPECT_EQ(Fail(kNine + seconds{1}).kind, DecisionKind::kNotify);
}

TEST_F(IncidentMachineTest, HealthyWithNothingOpenIsIgnoredAndChangesNothing) {
  const Decision d = Pass(kNine);
  EXPECT_EQ(d.kind, DecisionKind::kIgnore);
  EXPECT_FALSE(d.changed);
  EXPECT_EQ(incident_.version, 0U);
  EXPECT_EQ(incident_.status, IncidentStatus::kNone);
  EXPECT_FALSE(incident_.last_observed_at.has_value());
}

TEST_F(IncidentMachineTest, ResolvesWhenStreakExactlyReached) {
  Fail(kNine);
  EXPECT_EQ(Pass(kNine + minutes{1}).kind, DecisionKind::kWaitForHealth);
  EXPECT_EQ(incident_.healthy_streak, 1U);
  EXPECT_EQ(Pass(kNine + minutes{2}).kind, DecisionKind::kWaitForHealth);
  const Decision d = Pass(kNine + minutes{3});
  EXPECT_EQ(d.kind, DecisionKind::kResolve);
  EXPECT_EQ(d.transition, TransitionKind::kResolve);
  EXPECT_EQ(incident_.status, IncidentStatus::kResolved);
  EXPECT_EQ(incident_.resolved_at, kNine + minutes{3});
  EXPECT_EQ(Pass(kNine + minutes{4}).kind, DecisionKind::kIgnore);
}

TEST_F(IncidentMachineTest, OneHealthyPollBetweenFailuresNeverResolves) {
  Fail(kNine);
  for (int i = 1; i < 40; i += 2) {
    EXPECT_EQ(Pass(kNine + minutes{i}).kind, DecisionKind::kWaitForHealth);
    EXPECT_NE(Fail(kNine + minutes{i + 1}).kind, DecisionKind::kResolve);
    EXPECT_EQ(incident_.healthy_streak, 0U);
  }
  EXPECT_EQ(incident_.status, IncidentStatus::kOpen);
  EXPECT_EQ(incident_.generation, 1U);
}

TEST_F(IncidentMachineTest, UnknownChangesNothingAndNeverCountsAsHealthy) {
  Fail(kNine);
  Pass(kNine + minutes{1});
  Pass(kNine + minutes{2});
  const Incident before = incident_;
  const Decision d = See(Health::kUnknown, kNine + minutes{3});
  EXPECT_EQ(d.kind, DecisionKind::kUnknown);
  EXPECT_FALSE(d.changed);
  EXPECT_EQ(d.version, before.version);
  EXPECT_EQ(incident_.healthy_streak, 2U);
  EXPECT_EQ(incident_.last_observed_at, before.last_observed_at);
  // The third healthy poll, not the unknown one, reaches the streak.
  EXPECT_EQ(Pass(kNine + minutes{4}).kind, DecisionKind::kResolve);
}

TEST_F(IncidentMachineTest, UnknownBetweenFailuresKeepsTheIncidentAndTheCooldown) {
  Fail(kNine);
  EXPECT_EQ(See(Health::kUnknown, kNine + minutes{1}).kind, DecisionKind::kUnknown);
  EXPECT_EQ(Fail(kNine + minutes{2}).kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(incident_.last_notified_at, kNine);
}

TEST_F(IncidentMachineTest, UnknownOnANewKeyKeepsNoRecord) {
  const Decision d = See(Health::kUnknown, kNine);
  EXPECT_EQ(d.kind, DecisionKind::kUnknown);
  EXPECT_EQ(d.generation, 0U);
  EXPECT_TRUE(incident_.key.empty());
}

TEST_F(IncidentMachineTest, ReopenAfterResolveStartsANewGeneration) {
  Fail(kNine);
  Fail(kNine + minutes{1});
  for (int i = 2; i <= 4; ++i) Pass(kNine + minutes{i});
  ASSERT_EQ(incident_.status, IncidentStatus::kResolved);
  const uint64_t version_before = incident_.version;
  const Decision d = Fail(kNine + minutes{5});
  EXPECT_EQ(d.kind, DecisionKind::kNotify);
  EXPECT_EQ(d.reason, Reason::kOpen);
  EXPECT_EQ(d.transition, TransitionKind::kOpen);
  EXPECT_EQ(d.generation, 2U);
  EXPECT_EQ(d.version, version_before + 1);
  EXPECT_EQ(incident_.event_count, 1U);
  EXPECT_EQ(incident_.opened_at, kNine + minutes{5});
  EXPECT_EQ(incident_.first_seen_at, kNine);
  EXPECT_FALSE(incident_.resolved_at.has_value());
}

TEST_F(IncidentMachineTest, ObservationNotLaterThanTheLastIsStale) {
  Fail(kNine);
  const Incident before = incident_;
  const Decision same = Fail(kNine);
  EXPECT_EQ(same.kind, DecisionKind::kStale);
  EXPECT_FALSE(same.changed);
  EXPECT_EQ(same.version, before.version);
  EXPECT_EQ(Pass(kNine - seconds{1}).kind, DecisionKind::kStale);
  EXPECT_EQ(See(Health::kUnknown, kNine).kind, DecisionKind::kStale);
  EXPECT_EQ(incident_.event_count, before.event_count);
  EXPECT_EQ(incident_.version, before.version);
}

TEST_F(IncidentMachineTest, ApplyingTheSamePollTwiceChangesNothingTheSecondTime) {
  const WallTime polls[] = {kNine, kNine + minutes{1}, kNine + minutes{2}, kNine + minutes{3}};
  const Health healths[] = {Health::kUnhealthy, Health::kHealthy, Health::kHealthy,
                            Health::kHealthy};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(See(healths[i], polls[i]).changed);
    const uint64_t version = incident_.version;
    EXPECT_EQ(See(healths[i], polls[i]).kind, DecisionKind::kStale);
    EXPECT_EQ(incident_.version, version);
  }
  EXPECT_EQ(incident_.status, IncidentStatus::kResolved);
}

TEST_F(IncidentMachineTest, VersionGrowsOnEveryChange) {
  uint64_t last = 0;
  const Health pattern[] = {Health::kUnhealthy, Health::kUnhealthy, Health::kHealthy,
                            Health::kUnhealthy, Health::kHealthy,   Health::kHealthy,
                            Health::kHealthy};
  int minute = 0;
  for (Health h : pattern) {
    const Decision d = See(h, kNine + minutes{minute++});
    ASSERT_TRUE(d.changed);
    EXPECT_EQ(d.version, last + 1);
    last = d.version;
  }
}

TEST_F(IncidentMachineTest, KeepsOnlyTheMostRecentEvidence) {
  policy_.evidence_limit = 2;
  See(Health::kUnhealthy, kNine, R"({"n":1})");
  See(Health::kUnhealthy, kNine + minutes{1}, R"({"n":2})");
  See(Health::kUnhealthy, kNine + minutes{2}, "{}");
  See(Health::kUnhealthy, kNine + minutes{3}, R"({"n":3})");
  ASSERT_EQ(incident_.recent_evidence.size(), 2U);
  EXPECT_EQ(incident_.recent_evidence[0], R"({"n":2})");
  EXPECT_EQ(incident_.recent_evidence[1], R"({"n":3})");
}

TEST_F(IncidentMachineTest, OnlyTheResolvingHealthyPollKeepsItsEvidence) {
  policy_.healthy_polls_to_close = 2;
  See(Health::kUnhealthy, kNine, R"({"n":1})");
  See(Health::kHealthy, kNine + minutes{1}, R"({"waiting":true})");
  EXPECT_EQ(incident_.recent_evidence.size(), 1U);
  EXPECT_EQ(See(Health::kHealthy, kNine + minutes{2}, R"({"resolved":true})").kind,
            DecisionKind::kResolve);
  ASSERT_EQ(incident_.recent_evidence.size(), 2U);
  EXPECT_EQ(incident_.recent_evidence[1], R"({"resolved":true})");
}

TEST_F(IncidentMachineTest, RenotifyLimitCapsCooldownNotifications) {
  policy_.renotify_limit = 1;
  Fail(kNine);
  EXPECT_EQ(Fail(kNine + minutes{10}).reason, Reason::kCooldownElapsed);
  const Decision capped = Fail(kNine + minutes{20});
  EXPECT_EQ(capped.kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(capped.reason, Reason::kRenotifyLimit);
  EXPECT_FALSE(capped.transition.has_value());
  // A new generation gets a fresh allowance.
  for (int i = 21; i <= 23; ++i) Pass(kNine + minutes{i});
  EXPECT_EQ(Fail(kNine + minutes{24}).reason, Reason::kOpen);
  EXPECT_EQ(Fail(kNine + minutes{34}).reason, Reason::kCooldownElapsed);
}

TEST_F(IncidentMachineTest, RenotifyLimitZeroMeansOpenOnly) {
  policy_.renotify_limit = 0;
  Fail(kNine);
  EXPECT_EQ(Fail(kNine + minutes{60}).reason, Reason::kRenotifyLimit);
}

TEST_F(IncidentMachineTest, MinimumOpenTimeHoldsTheResolve) {
  policy_.min_open = minutes{10};
  Fail(kNine);
  Pass(kNine + minutes{1});
  Pass(kNine + minutes{2});
  const Decision held = Pass(kNine + minutes{3});
  EXPECT_EQ(held.kind, DecisionKind::kWaitForHealth);
  EXPECT_EQ(held.reason, Reason::kMinOpen);
  EXPECT_EQ(Pass(kNine + minutes{9}).reason, Reason::kMinOpen);
  EXPECT_EQ(Pass(kNine + minutes{10}).kind, DecisionKind::kResolve);
}

TEST_F(IncidentMachineTest, AcknowledgedIncidentIsNotRenotified) {
  Fail(kNine);
  incident_.acked_at = kNine + minutes{1};
  incident_.acked_by = "oncall";
  const Decision d = Fail(kNine + minutes{15});
  EXPECT_EQ(d.kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(d.reason, Reason::kAcknowledged);
  for (int i = 16; i <= 18; ++i) Pass(kNine + minutes{i});
  // The acknowledgement belongs to the generation it was given for.
  EXPECT_EQ(Fail(kNine + minutes{19}).reason, Reason::kOpen);
  EXPECT_FALSE(incident_.acked_at.has_value());
  EXPECT_TRUE(incident_.acked_by.empty());
}

TEST_F(IncidentMachineTest, EvaluateCopyLeavesTheInputAlone) {
  Fail(kNine);
  const Incident before = incident_;
  const Evaluation e = EvaluateCopy(before, Obs(Health::kHealthy, kNine + minutes{1}), policy_);
  EXPECT_EQ(e.decision.kind, DecisionKind::kWaitForHealth);
  EXPECT_EQ(e.next.healthy_streak, 1U);
  EXPECT_EQ(before.healthy_streak, 0U);
}

class FlapDampingTest : public IncidentMachineTest {
 protected:
  void SetUp() override {
    FlapDamping flap;
    flap.window = 10;
    flap.low_percent = 20;
    flap.high_percent = 40;
    flap.reopen_within = minutes{15};
    policy_.flap = flap;
    policy_.healthy_polls_to_close = 1;
  }
};

TEST_F(FlapDampingTest, SteadyFailureDoesNotFlap) {
  for (int i = 0; i < 12; ++i) Fail(kNine + minutes{i});
  EXPECT_FALSE(incident_.flapping);
}

TEST_F(FlapDampingTest, AlternatingStatesStartFlappingAndContinueTheIncident) {
  // Without damping each fail/pass pair would be a new generation and a new page.
  int minute = 0;
  int opens = 0;
  for (int i = 0; i < 6; ++i) {
    if (Fail(kNine + minutes{minute++}).reason == Reason::kOpen) ++opens;
    Pass(kNine + minutes{minute++});
  }
  EXPECT_TRUE(incident_.flapping);
  const Decision reopened = Fail(kNine + minutes{minute++});
  EXPECT_EQ(reopened.kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(reopened.reason, Reason::kFlapping);
  EXPECT_FALSE(reopened.transition.has_value());
  EXPECT_EQ(incident_.status, IncidentStatus::kOpen);
  EXPECT_LT(opens, 6);
  EXPECT_EQ(incident_.generation, static_cast<uint64_t>(opens));
}

TEST_F(FlapDampingTest, ReopenLongAfterTheResolvePagesEvenWhileFlapping) {
  int minute = 0;
  for (int i = 0; i < 6; ++i) {
    Fail(kNine + minutes{minute++});
    Pass(kNine + minutes{minute++});
  }
  ASSERT_TRUE(incident_.flapping);
  const uint64_t generation = incident_.generation;
  const Decision d = Fail(kNine + minutes{minute + 16});
  EXPECT_EQ(d.reason, Reason::kOpen);
  EXPECT_EQ(d.generation, generation + 1);
}

TEST_F(FlapDampingTest, FlappingStopsOnceTheStateSettles) {
  int minute = 0;
  for (int i = 0; i < 6; ++i) {
    Fail(kNine + minutes{minute++});
    Pass(kNine + minutes{minute++});
  }
  ASSERT_TRUE(incident_.flapping);
  for (int i = 0; i < 10; ++i) Pass(kNine + minutes{minute++});
  EXPECT_FALSE(incident_.flapping);
  EXPECT_EQ(Fail(kNine + minutes{minute}).reason, Reason::kOpen);
}

TEST_F(FlapDampingTest, OffByDefault) {
  Policy plain;
  Incident incident;
  int minute = 0;
  for (int i = 0; i < 6; ++i) {
    const Decision d =
        Evaluate(incident, Obs(Health::kUnhealthy, kNine + minutes{minute++}), plain);
    EXPECT_EQ(d.reason, Reason::kOpen);
    for (int k = 0; k < 3; ++k)
      Evaluate(incident, Obs(Health::kHealthy, kNine + minutes{minute++}), plain);
  }
  EXPECT_FALSE(incident.flapping);
  EXPECT_EQ(incident.flap_history.count(), 0U);
}

}  // namespace
}  // namespace quell::core
