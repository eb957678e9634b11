// The pending period (Policy::unhealthy_polls_to_open): a key opens, and pages, only at its Nth
// unhealthy observation in a row; a healthy one ends the run, an unknown one leaves it.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "quell/core/engine/evaluate.h"

namespace quell::core {
namespace pending_period_test {

using std::chrono::minutes;
using std::chrono::seconds;

const WallTime kNine = WallTime{std::chrono::hours{24 * 20789 + 9}};  // 2026-12-02T09:00:00Z

Observation Obs(Health health, WallTime at, Labels labels = {},
                std::optional<uint64_t> upstream = std::nullopt) {
  return Observation{"t1:model-answer", at,       health, "model-answer", "",
                     std::move(labels), upstream, {},     false,          std::nullopt};
}

class PendingPeriodTest : public ::testing::Test {
 protected:
  Decision See(Health health, int minute) {
    return Evaluate(incident_, Obs(health, kNine + minutes{minute}), policy_);
  }
  Decision Fail(int minute) { return See(Health::kUnhealthy, minute); }
  Decision Pass(int minute) { return See(Health::kHealthy, minute); }

  Policy policy_;
  Incident incident_;
};

TEST_F(PendingPeriodTest, OneFailingPollBetweenHealthyOnesDoesNotPageWithTwo) {
  policy_.unhealthy_polls_to_open = 2;
  EXPECT_EQ(Pass(0).kind, DecisionKind::kIgnore);
  const Decision d = Fail(1);
  EXPECT_EQ(d.kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(d.reason, Reason::kPending);
  EXPECT_FALSE(d.transition.has_value());
  EXPECT_TRUE(d.changed);
  EXPECT_EQ(std::string(ReasonName(d.reason)), "pending");
  EXPECT_EQ(incident_.status, IncidentStatus::kNone);
  EXPECT_EQ(incident_.unhealthy_streak, 1u);
  const Decision healthy = Pass(2);
  EXPECT_EQ(healthy.kind, DecisionKind::kIgnore);
  EXPECT_TRUE(healthy.changed);  // the streak it ended is written back
  EXPECT_EQ(incident_.unhealthy_streak, 0u);
  // The run starts over: the next single failure is pending again, not an open.
  EXPECT_EQ(Fail(3).reason, Reason::kPending);
  EXPECT_EQ(Pass(4).kind, DecisionKind::kIgnore);
  EXPECT_EQ(incident_.generation, 0u);
}

TEST_F(PendingPeriodTest, NMinusOneFailuresThenHealthyNeverPage) {
  policy_.unhealthy_polls_to_open = 4;
  for (int minute = 0; minute < 3; ++minute) {
    const Decision d = Fail(minute);
    EXPECT_EQ(d.kind, DecisionKind::kUpdateOnly) << minute;
    EXPECT_EQ(d.reason, Reason::kPending) << minute;
  }
  EXPECT_EQ(Pass(3).kind, DecisionKind::kIgnore);
  EXPECT_EQ(Fail(4).reason, Reason::kPending);
  EXPECT_EQ(incident_.generation, 0u);
  EXPECT_EQ(incident_.status, IncidentStatus::kNone);
}

TEST_F(PendingPeriodTest, NFailuresInARowPageAtTheNth) {
  policy_.unhealthy_polls_to_open = 3;
  EXPECT_EQ(Fail(0).reason, Reason::kPending);
  EXPECT_EQ(Fail(1).reason, Reason::kPending);
  const Decision d = Fail(2);
  EXPECT_EQ(d.kind, DecisionKind::kNotify);
  EXPECT_EQ(d.reason, Reason::kOpen);
  EXPECT_EQ(d.transition, TransitionKind::kOpen);
  EXPECT_EQ(incident_.generation, 1u);
  EXPECT_EQ(incident_.opened_at, kNine + minutes{2});
  EXPECT_EQ(incident_.first_seen_at, kNine);  // when the failure started
  EXPECT_EQ(incident_.event_count, 3u);       // the pending failures count toward it
  EXPECT_EQ(incident_.unhealthy_streak, 0u);
  // Once open, the cooldown rules as before.
  EXPECT_EQ(Fail(3).kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(incident_.unhealthy_streak, 0u);
}

TEST_F(PendingPeriodTest, UnknownLeavesTheStreakWhereItWas) {
  policy_.unhealthy_polls_to_open = 2;
  EXPECT_EQ(Fail(0).reason, Reason::kPending);
  EXPECT_EQ(See(Health::kUnknown, 1).kind, DecisionKind::kUnknown);
  EXPECT_EQ(incident_.unhealthy_streak, 1u);
  EXPECT_EQ(Fail(2).kind, DecisionKind::kNotify);
}

TEST_F(PendingPeriodTest, AResolvedKeyWaitsOutThePendingPeriodAgain) {
  policy_.unhealthy_polls_to_open = 2;
  policy_.healthy_polls_to_close = 1;
  Fail(0);
  ASSERT_EQ(Fail(1).kind, DecisionKind::kNotify);
  ASSERT_EQ(Pass(2).kind, DecisionKind::kResolve);
  EXPECT_EQ(Fail(3).reason, Reason::kPending);
  EXPECT_EQ(incident_.status, IncidentStatus::kResolved);
  const Decision reopened = Fail(4);
  EXPECT_EQ(reopened.reason, Reason::kOpen);
  EXPECT_EQ(incident_.generation, 2u);
}

TEST(PendingPeriodValidationTest, ZeroIsRefused) {
  Policy policy;
  policy.unhealthy_polls_to_open = 0;
  const Status status = Validate(policy);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("unhealthy_polls_to_open"), std::string::npos);
}

// Labels and the upstream count travel from the observation to the incident, and each message
// reports how much of the count is new since the previous one.
TEST(UpstreamCountTest, EachMessageCountsWhatArrivedSinceThePreviousOne) {
  Policy policy;
  policy.cooldown = minutes{10};
  policy.healthy_polls_to_close = 1;
  Incident incident;
  const Labels labels = {{"stage", "answer"}, {"tenant", "t1"}};
  ASSERT_EQ(Evaluate(incident, Obs(Health::kUnhealthy, kNine, labels, 12), policy).reason,
            Reason::kOpen);
  EXPECT_EQ(incident.labels, labels);
  EXPECT_EQ(incident.upstream_count, std::optional<uint64_t>(12));
  EXPECT_EQ(incident.upstream_count_since_previous_message, std::optional<uint64_t>(12));
  // Inside the cooldown: recorded, no message, the message's numbers stay.
  Evaluate(incident, Obs(Health::kUnhealthy, kNine + minutes{5}, {}, 15), policy);
  EXPECT_EQ(incident.labels, labels);  // an observation without labels keeps them
  EXPECT_EQ(incident.upstream_count, std::optional<uint64_t>(15));
  EXPECT_EQ(incident.upstream_count_since_previous_message, std::optional<uint64_t>(12));
  ASSERT_EQ(Evaluate(incident, Obs(Health::kUnhealthy, kNine + minutes{10}, {}, 20), policy).reason,
            Reason::kCooldownElapsed);
  EXPECT_EQ(incident.upstream_count_since_previous_message, std::optional<uint64_t>(8));
  ASSERT_EQ(Evaluate(incident, Obs(Health::kHealthy, kNine + minutes{11}), policy).kind,
            DecisionKind::kResolve);
  EXPECT_EQ(incident.upstream_count_since_previous_message, std::optional<uint64_t>(0));
  // A new generation starts counting from its own open.
  ASSERT_EQ(Evaluate(incident, Obs(Health::kUnhealthy, kNine + minutes{30}, {}, 25), policy).reason,
            Reason::kOpen);
  EXPECT_EQ(incident.upstream_count_since_previous_message, std::optional<uint64_t>(25));
}

// The reference decisions of the source text, with a pending period added: consecutive
// failures while closed are counted, a healthy observation clears the count.
struct Reference {
  bool open = false;
  std::optional<WallTime> last_notified_at;
  uint32_t healthy_streak = 0;
  uint32_t unhealthy_streak = 0;
};

std::string ReferenceEvaluate(Reference& r, bool unhealthy, WallTime now, const Policy& policy) {
  if (unhealthy) {
    r.healthy_streak = 0;
    if (!r.open) {
      if (++r.unhealthy_streak < policy.unhealthy_polls_to_open) return "update_only";
      r.unhealthy_streak = 0;
      r.open = true;
      r.last_notified_at = now;
      return "notify";
    }
    if (now - *r.last_notified_at >= policy.cooldown) {
      r.last_notified_at = now;
      return "notify";
    }
    return "update_only";
  }
  r.unhealthy_streak = 0;
  if (!r.open) return "ignore";
  if (++r.healthy_streak >= policy.healthy_polls_to_close) {
    r.open = false;
    return "resolve";
  }
  return "wait_for_health";
}

// With N = 1 this is the source text's reference exactly, so the first runs check that the
// pending period's default changes no decision of today's; the rest check N up to 4.
TEST(PendingPeriodPropertyTest, AgreesWithTheReferenceOnRandomTraces) {
  std::mt19937_64 rng(16);
  size_t compared = 0;
  for (int run = 0; run < 400; ++run) {
    Policy policy;
    policy.cooldown = seconds{static_cast<int64_t>(rng() % 1800)};
    policy.healthy_polls_to_close = 1 + static_cast<uint32_t>(rng() % 5);
    policy.unhealthy_polls_to_open = run < 200 ? 1 : 1 + static_cast<uint32_t>(rng() % 4);
    std::map<std::string, Incident> ours;
    std::map<std::string, Reference> reference;
    std::map<std::string, WallTime> clock;
    const double unhealthy_share = std::uniform_real_distribution<double>(0.1, 0.9)(rng);
    for (int i = 0; i < 300; ++i) {
      const std::string key = "k" + std::to_string(rng() % 8);
      WallTime& at = clock.try_emplace(key, kNine).first->second;
      at += seconds{1 + static_cast<int64_t>(rng() % 900)};
      const double roll = std::uniform_real_distribution<double>(0, 1)(rng);
      Health health = roll < unhealthy_share ? Health::kUnhealthy : Health::kHealthy;
      if (rng() % 10 == 0) health = Health::kUnknown;
      const Decision d = Evaluate(
          ours[key], Observation{key, at, health, "", "", {}, {}, {}, false, std::nullopt}, policy);
      if (health == Health::kUnknown) {
        ASSERT_EQ(d.kind, DecisionKind::kUnknown);
        continue;
      }
      const std::string expected =
          ReferenceEvaluate(reference[key], health == Health::kUnhealthy, at, policy);
      ASSERT_EQ(DecisionName(d.kind), expected) << "run " << run << " key " << key;
      if (d.kind == DecisionKind::kNotify) {
        ASSERT_TRUE(d.transition.has_value());
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 100000U);
}

// Under every other knob (flap damping, renotify limit, minimum open time) and with unknown
// and stale observations mixed in, a key opens only at its Nth failure in a row since it was
// last seen healthy, and an open key carries no pending streak.
TEST(PendingPeriodPropertyTest, OpensOnlyAfterNFailuresInARowUnderEveryPolicy) {
  std::mt19937_64 rng(1616);
  size_t opens = 0;
  for (int run = 0; run < 400; ++run) {
    Policy policy;
    policy.cooldown = seconds{static_cast<int64_t>(rng() % 1800)};
    policy.healthy_polls_to_close = 1 + static_cast<uint32_t>(rng() % 4);
    policy.unhealthy_polls_to_open = 1 + static_cast<uint32_t>(rng() % 4);
    if (rng() % 2 == 0) policy.renotify_limit = static_cast<uint32_t>(rng() % 3);
    if (rng() % 2 == 0) policy.min_open = seconds{static_cast<int64_t>(rng() % 3600)};
    if (rng() % 2 == 0) policy.flap = FlapDamping{};
    ASSERT_TRUE(Validate(policy).ok());
    std::map<std::string, Incident> incidents;
    std::map<std::string, uint32_t> failures_in_a_row;  // applied, since the last healthy one
    std::map<std::string, WallTime> clock;
    for (int i = 0; i < 300; ++i) {
      const std::string key = "k" + std::to_string(rng() % 6);
      WallTime& last = clock.try_emplace(key, kNine).first->second;
      WallTime at = last + seconds{1 + static_cast<int64_t>(rng() % 900)};
      if (rng() % 8 == 0) at = last - seconds{static_cast<int64_t>(rng() % 60)};  // stale
      if (at > last) last = at;
      Health health = rng() % 2 == 0 ? Health::kUnhealthy : Health::kHealthy;
      if (rng() % 10 == 0) health = Health::kUnknown;
      Incident& incident = incidents[key];
      const Decision d = Evaluate(
          incident, Observation{key, at, health, "", "", {}, {}, {}, false, std::nullopt}, policy);
      if (d.kind == DecisionKind::kStale || d.kind == DecisionKind::kUnknown) continue;
      if (health == Health::kHealthy) failures_in_a_row[key] = 0;
      if (health == Health::kUnhealthy && !incident.is_open()) ++failures_in_a_row[key];
      if (d.reason == Reason::kOpen) {
        ++opens;
        ASSERT_GE(++failures_in_a_row[key], policy.unhealthy_polls_to_open) << "run " << run;
        failures_in_a_row[key] = 0;
      }
      if (d.reason == Reason::kPending) {
        ASSERT_FALSE(incident.is_open());
        ASSERT_LT(incident.unhealthy_streak, policy.unhealthy_polls_to_open);
        ASSERT_FALSE(d.transition.has_value());
      }
      if (incident.is_open()) {
        ASSERT_EQ(incident.unhealthy_streak, 0u);
      }
    }
  }
  EXPECT_GT(opens, 1000u);
}

}  // namespace pending_period_test
}  // namespace quell::core
