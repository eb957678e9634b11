// Random traces against two oracles: the source text's reference `evaluate` (ported verbatim in
// behaviour, for the default policy) and the invariants that must hold under every policy.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "quell/core/engine/evaluate.h"
#include "quell/core/engine/operator_actions.h"

namespace quell::core {
namespace {

using std::chrono::seconds;

// The reference decision logic from the source text: a bool `open`, the last notification
// time and the healthy streak, nothing else. It knows no unknown and no staleness.
struct ReferenceIncident {
  bool open = false;
  std::optional<WallTime> last_notified_at;
  uint32_t healthy_streak = 0;
};

std::string ReferenceEvaluate(ReferenceIncident& incident, bool unhealthy, WallTime now,
                              Duration cooldown, uint32_t healthy_polls_to_close) {
  if (unhealthy) {
    incident.healthy_streak = 0;
    const bool cooldown_elapsed =
        !incident.last_notified_at || now - *incident.last_notified_at >= cooldown;
    if (!incident.open || cooldown_elapsed) {
      incident.open = true;
      incident.last_notified_at = now;
      return "notify";
    }
    return "update_only";
  }
  if (!incident.open) return "ignore";
  incident.healthy_streak += 1;
  if (incident.healthy_streak >= healthy_polls_to_close) {
    incident.open = false;
    return "resolve";
  }
  return "wait_for_health";
}

const WallTime kStart = WallTime{std::chrono::hours{24 * 20789}};

struct Step {
  std::string key;
  WallTime at;
  Health health;
};

// Per-key strictly increasing times when `strict`, otherwise with duplicates and regressions.
std::vector<Step> RandomTrace(std::mt19937_64& rng, size_t length, bool strict) {
  const size_t keys = 1 + rng() % 12;
  std::map<std::string, WallTime> clock;
  std::vector<Step> trace;
  const double unhealthy_share = std::uniform_real_distribution<double>(0.1, 0.9)(rng);
  for (size_t i = 0; i < length; ++i) {
    std::string key = "k" + std::to_string(rng() % keys);
    auto [it, fresh] = clock.try_emplace(key, kStart);
    const int64_t step_seconds = 1 + static_cast<int64_t>(rng() % 900);
    WallTime at = it->second + seconds{step_seconds};
    if (!strict && rng() % 8 == 0) at = it->second - seconds{static_cast<int64_t>(rng() % 120)};
    if (at > it->second) it->second = at;
    const double roll = std::uniform_real_distribution<double>(0, 1)(rng);
    Health health = roll < unhealthy_share ? Health::kUnhealthy : Health::kHealthy;
    if (rng() % 10 == 0) health = Health::kUnknown;
    trace.push_back({std::move(key), at, health});
  }
  return trace;
}

TEST(EvaluatePropertyTest, DefaultPolicyAgreesWithTheReferenceOnRandomTraces) {
  std::mt19937_64 rng(20261202);
  size_t compared = 0;
  for (int run = 0; run < 400; ++run) {
    Policy policy;
    policy.cooldown = seconds{static_cast<int64_t>(rng() % 1800)};
    policy.healthy_polls_to_close = 1 + static_cast<uint32_t>(rng() % 5);
    std::map<std::string, Incident> ours;
    std::map<std::string, ReferenceIncident> reference;
    for (const Step& step : RandomTrace(rng, 300, /*strict=*/true)) {
      const Decision d = Evaluate(
          ours[step.key],
          Observation{step.key, step.at, step.health, "", "", {}, {}, {}, false, std::nullopt},
          policy);
      if (step.health == Health::kUnknown) {
        ASSERT_EQ(d.kind, DecisionKind::kUnknown);  // the reference has no such input
        continue;
      }
      const std::string expected =
          ReferenceEvaluate(reference[step.key], step.health == Health::kUnhealthy, step.at,
                            policy.cooldown, policy.healthy_polls_to_close);
      ASSERT_EQ(DecisionName(d.kind), expected) << "run " << run << " key " << step.key;
      ++compared;
    }
  }
  EXPECT_GT(compared, 100000U);
}

TEST(EvaluatePropertyTest, InvariantsHoldUnderEveryPolicy) {
  std::mt19937_64 rng(7);
  for (int run = 0; run < 400; ++run) {
    Policy policy;
    policy.cooldown = seconds{static_cast<int64_t>(rng() % 1800)};
    policy.healthy_polls_to_close = 1 + static_cast<uint32_t>(rng() % 5);
    if (rng() % 2 == 0) policy.renotify_limit = static_cast<uint32_t>(rng() % 3);
    if (rng() % 2 == 0) policy.min_open = seconds{static_cast<int64_t>(rng() % 3600)};
    if (rng() % 2 == 0) policy.flap = FlapDamping{};
    ASSERT_TRUE(Validate(policy).ok());

    std::map<std::string, Incident> incidents;
    std::map<std::string, uint32_t> healthy_run;  // healthy polls since the last failure
    for (const Step& step : RandomTrace(rng, 300, /*strict=*/false)) {
      Incident& incident = incidents[step.key];
      const Incident before = incident;
      const Decision d = Evaluate(
          incident,
          Observation{step.key, step.at, step.health, "", "", {}, {}, {}, false, std::nullopt},
          policy);

      if (before.last_observed_at && step.at <= *before.last_observed_at) {
        ASSERT_EQ(d.kind, DecisionKind::kStale);
      }
      if (!d.changed) {
        // Stale, unknown and ignore leave the record exactly as it was.
        ASSERT_EQ(incident.version, before.version);
        ASSERT_EQ(incident.healthy_streak, before.healthy_streak);
        ASSERT_EQ(incident.status, before.status);
        ASSERT_EQ(incident.last_observed_at, before.last_observed_at);
        continue;
      }
      ASSERT_NE(step.health, Health::kUnknown) << "an unknown poll changed the incident";
      ASSERT_EQ(d.version, before.version + 1) << "versions must strictly increase";
      ASSERT_GE(d.generation, before.generation);
      ASSERT_LE(d.generation, before.generation + 1);

      if (step.health == Health::kUnhealthy) {
        healthy_run[step.key] = 0;
      } else if (d.kind != DecisionKind::kIgnore) {
        ++healthy_run[step.key];
      }
      if (d.kind == DecisionKind::kNotify) {
        if (d.reason == Reason::kOpen) {
          ASSERT_NE(before.status, IncidentStatus::kOpen) << "opened twice";
          ASSERT_EQ(d.generation, before.generation + 1);
          ASSERT_EQ(d.transition, TransitionKind::kOpen);
        } else {
          ASSERT_EQ(d.reason, Reason::kCooldownElapsed);
          ASSERT_EQ(before.status, IncidentStatus::kOpen);
          ASSERT_TRUE(before.last_notified_at);
          ASSERT_GE(step.at - *before.last_notified_at, policy.cooldown) << "inside cooldown";
          ASSERT_EQ(d.transition, TransitionKind::kRenotify);
          if (policy.renotify_limit) {
            ASSERT_LE(incident.renotify_count, *policy.renotify_limit);
          }
        }
      } else {
        ASSERT_NE(d.transition, TransitionKind::kOpen);
        ASSERT_NE(d.transition, TransitionKind::kRenotify);
      }
      if (d.kind == DecisionKind::kResolve) {
        ASSERT_EQ(before.status, IncidentStatus::kOpen);
        ASSERT_GE(healthy_run[step.key], policy.healthy_polls_to_close);
        if (policy.min_open) {
          ASSERT_GE(step.at - *incident.opened_at, *policy.min_open);
        }
        ASSERT_EQ(d.transition, TransitionKind::kResolve);
      }
      if (d.generation != before.generation) {
        ASSERT_EQ(d.kind, DecisionKind::kNotify);
      }
    }
  }
}

// Manual resolves dropped at random into random traces: a held key never pages until it was
// seen healthy or its bound passed, and then its next failure opens a new generation at once.
TEST(EvaluatePropertyTest, AManualResolveHoldsUntilHealthyOrItsBound) {
  std::mt19937_64 rng(11);
  for (int run = 0; run < 400; ++run) {
    Policy policy;
    policy.cooldown = seconds{static_cast<int64_t>(rng() % 1800)};
    policy.healthy_polls_to_close = 1 + static_cast<uint32_t>(rng() % 5);
    if (rng() % 2 == 0) policy.flap = FlapDamping{};
    ASSERT_TRUE(Validate(policy).ok());

    std::map<std::string, Incident> incidents;
    // Per key: the end of the hold's bound, or nullopt for "until healthy"; absent: no hold.
    std::map<std::string, std::optional<WallTime>> holds;
    for (const Step& step : RandomTrace(rng, 300, /*strict=*/true)) {
      Incident& incident = incidents[step.key];
      if (incident.is_open() && rng() % 4 == 0) {
        std::optional<Duration> hold_for;
        if (rng() % 2 == 0) hold_for = seconds{static_cast<int64_t>(rng() % 3600)};
        const WallTime now = *incident.last_observed_at + seconds{1};
        if (now < step.at) {
          ASSERT_TRUE(ResolveByHand(incident, now, hold_for).changed);
          holds[step.key] = hold_for ? std::optional<WallTime>(now + *hold_for) : std::nullopt;
        }
      }
      const Incident before = incident;
      const Decision d = Evaluate(
          incident,
          Observation{step.key, step.at, step.health, "", "", {}, {}, {}, false, std::nullopt},
          policy);
      const auto hold = holds.find(step.key);
      if (hold == holds.end()) continue;
      const bool bound_passed = hold->second && step.at >= *hold->second;
      if (step.health == Health::kUnknown) {
        ASSERT_FALSE(d.changed);
        ASSERT_TRUE(incident.held);
      } else if (step.health == Health::kHealthy) {
        ASSERT_EQ(d.kind, DecisionKind::kIgnore);
        ASSERT_EQ(d.reason, Reason::kHoldReleased);
        ASSERT_FALSE(incident.held);
        holds.erase(hold);
      } else if (!bound_passed) {
        ASSERT_EQ(d.kind, DecisionKind::kUpdateOnly) << "a held key paged";
        ASSERT_EQ(d.reason, Reason::kManuallyResolved);
        ASSERT_EQ(d.generation, before.generation);
        ASSERT_EQ(incident.status, IncidentStatus::kResolved);
        ASSERT_EQ(incident.last_seen_at, step.at);
        ASSERT_EQ(incident.event_count, before.event_count + 1);
      } else {
        ASSERT_FALSE(incident.held);
        ASSERT_TRUE(d.kind == DecisionKind::kNotify ||
                    (policy.flap && d.reason == Reason::kFlapping))
            << "a failure after the hold's bound must open again";
        holds.erase(hold);
      }
    }
  }
}

}  // namespace
}  // namespace quell::core
