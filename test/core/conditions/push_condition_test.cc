#include "quell/core/conditions/push_condition.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "quell/core/engine/evaluate.h"

namespace quell::core {
namespace push_condition_test {

using std::chrono::hours;
using std::chrono::minutes;

constexpr WallTime kNow{std::chrono::hours{24 * 20789 + 9}};  // 2026-12-02T09:00:00Z

PushCondition Alerts() {
  PushCondition c;
  c.common.name = "prom-alerts";
  c.key = KeyTemplate::Parse("{labels.tenant|no-tenant}:{labels.alertname}").value();
  c.stale_after = minutes(15);
  c.expire_after = hours(4);
  return c;
}

PushedAlert Alert(bool firing, std::string tenant, std::string name,
                  std::optional<WallTime> starts_at = std::nullopt, std::string evidence = "") {
  PushedAlert a;
  a.firing = firing;
  a.labels = {{"alertname", std::move(name)}, {"tenant", std::move(tenant)}};
  a.annotations = {{"summary", "disk full"}};
  a.starts_at = starts_at;
  a.evidence = std::move(evidence);
  return a;
}

Incident OpenIncident(std::string key, std::optional<WallTime> last_observed,
                      std::string condition = "prom-alerts") {
  Incident i;
  i.key = std::move(key);
  i.condition = std::move(condition);
  i.status = IncidentStatus::kOpen;
  i.generation = 1;
  i.version = 1;
  i.opened_at = kNow - hours(10);
  i.last_observed_at = last_observed;
  return i;
}

TEST(PushConditionValidateTest, StaleAfterMustBePositiveAndExpireAfterLonger) {
  PushCondition c = Alerts();
  EXPECT_TRUE(Validate(c).ok());
  c.expire_after.reset();
  EXPECT_TRUE(Validate(c).ok());
  c.stale_after = Duration::zero();
  ASSERT_FALSE(Validate(c).ok());
  EXPECT_EQ(Validate(c).error().message.rfind("stale_after:", 0), 0u);
  c.stale_after = minutes(15);
  c.expire_after = minutes(15);
  ASSERT_FALSE(Validate(c).ok());
  EXPECT_EQ(Validate(c).error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(Validate(c).error().message.find("expire_after: must be longer than stale_after"),
            std::string::npos);
}

TEST(ObservePushedAlertsTest, OneObservationPerKeyInTheOrderKeysFirstAppear) {
  const std::vector<PushedAlert> alerts = {
      Alert(true, "acme", "DiskFull", std::nullopt, R"({"a":1})"),
      Alert(false, "globex", "HighLatency"),
      Alert(true, "acme", "DiskFull", std::nullopt, R"({"a":2})"),
  };
  const std::vector<Observation> out = ObservePushedAlerts(Alerts(), alerts, kNow);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].key, "acme:DiskFull");
  EXPECT_EQ(out[0].health, Health::kUnhealthy);
  EXPECT_EQ(out[0].evidence, R"({"a":1})");
  EXPECT_EQ(out[0].condition, "prom-alerts");
  EXPECT_EQ(out[0].at, kNow);
  EXPECT_EQ(out[0].labels, alerts[0].labels);
  EXPECT_EQ(out[1].key, "globex:HighLatency");
  EXPECT_EQ(out[1].health, Health::kHealthy);
  EXPECT_FALSE(out[1].expire);
}

TEST(ObservePushedAlertsTest, AFiringTwinWinsOverAResolvedOneWithItsLabelsAndEvidence) {
  PushedAlert resolved = Alert(false, "acme", "DiskFull", std::nullopt, R"({"r":1})");
  resolved.labels.emplace_back("zone", "a");
  PushedAlert firing = Alert(true, "acme", "DiskFull", std::nullopt, R"({"f":1})");
  firing.labels.emplace_back("zone", "b");
  const std::vector<PushedAlert> alerts = {resolved, firing};
  const std::vector<Observation> out = ObservePushedAlerts(Alerts(), alerts, kNow);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].health, Health::kUnhealthy);
  EXPECT_EQ(out[0].evidence, R"({"f":1})");
  EXPECT_EQ(out[0].labels, firing.labels);
}

TEST(ObservePushedAlertsTest, TheEarliestStartIsTheFirstSeenTime) {
  const std::vector<PushedAlert> alerts = {
      Alert(true, "acme", "DiskFull", kNow - minutes(5)),
      Alert(true, "acme", "DiskFull"),
      Alert(true, "acme", "DiskFull", kNow - minutes(30)),
      Alert(true, "globex", "DiskFull"),
  };
  const std::vector<Observation> out = ObservePushedAlerts(Alerts(), alerts, kNow);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].first_seen_at, kNow - minutes(30));
  EXPECT_FALSE(out[1].first_seen_at.has_value());
}

TEST(ObservePushedAlertsTest, KeysReadAnnotationsAndFallBackWhenALabelIsMissing) {
  PushCondition c = Alerts();
  c.key = KeyTemplate::Parse("{labels.tenant|no-tenant}:{annotations.summary}").value();
  PushedAlert a = Alert(true, "", "DiskFull");
  a.labels = {{"alertname", "DiskFull"}};
  const std::vector<PushedAlert> alerts = {a};
  const std::vector<Observation> out = ObservePushedAlerts(c, alerts, kNow);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].key, "no-tenant:disk full");
}

TEST(ObserveStalePushesTest, OnlyKeysUnrefreshedForStaleAfterAreUnknownSortedByKey) {
  const std::vector<Incident> open = {
      OpenIncident("b:stale", kNow - minutes(20)),
      OpenIncident("c:fresh", kNow - minutes(14)),
      OpenIncident("a:exactly", kNow - minutes(15)),
      OpenIncident("d:other", kNow - minutes(20), "other-condition"),
  };
  const std::vector<Observation> out = ObserveStalePushes(Alerts(), open, kNow);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].key, "a:exactly");
  EXPECT_EQ(out[1].key, "b:stale");
  for (const Observation& o : out) {
    EXPECT_EQ(o.health, Health::kUnknown);
    EXPECT_EQ(o.at, kNow);
    EXPECT_EQ(o.condition, "prom-alerts");
    EXPECT_FALSE(o.expire);
  }
}

TEST(ObserveStalePushesTest, PastExpireAfterTheObservationExpires) {
  const std::vector<Incident> open = {OpenIncident("a:old", kNow - hours(4)),
                                      OpenIncident("b:stale", kNow - hours(3))};
  const std::vector<Observation> out = ObserveStalePushes(Alerts(), open, kNow);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].expire);
  EXPECT_FALSE(out[1].expire);

  PushCondition never = Alerts();
  never.expire_after.reset();
  EXPECT_FALSE(ObserveStalePushes(never, open, kNow)[0].expire);
}

TEST(ObserveStalePushesTest, ResolvedIncidentsAreNotSweptAndOpensWithoutATimeAgeFromTheOpen) {
  Incident resolved = OpenIncident("a:resolved", kNow - hours(5));
  resolved.status = IncidentStatus::kResolved;
  Incident no_time = OpenIncident("b:untimed", std::nullopt);
  no_time.opened_at = kNow - minutes(16);
  const std::vector<Incident> open = {resolved, no_time};
  const std::vector<Observation> out = ObserveStalePushes(Alerts(), open, kNow);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].key, "b:untimed");
}

// The engine's side of a push condition: the key's own start, and expiry.
class PushEngineTest : public ::testing::Test {
 protected:
  Observation Pushed(Health health, WallTime at, std::optional<WallTime> first_seen = {}) {
    Observation o;
    o.key = "acme:DiskFull";
    o.condition = "prom-alerts";
    o.at = at;
    o.health = health;
    o.first_seen_at = first_seen;
    return o;
  }
  Observation Expiring(WallTime at) {
    Observation o = Pushed(Health::kUnknown, at);
    o.expire = true;
    return o;
  }
  Policy policy_;
  Incident incident_;
};

TEST_F(PushEngineTest, AFirstFailureTakesTheSourcesEarlierStartAsFirstSeen) {
  const Decision d =
      Evaluate(incident_, Pushed(Health::kUnhealthy, kNow, kNow - hours(2)), policy_);
  EXPECT_EQ(d.reason, Reason::kOpen);
  EXPECT_EQ(incident_.first_seen_at, kNow - hours(2));
  EXPECT_EQ(incident_.opened_at, kNow);  // the open is quell's, when it learned of it
}

TEST_F(PushEngineTest, AStartAfterTheObservationIsNotTakenAndALaterStartNeverMovesIt) {
  Evaluate(incident_, Pushed(Health::kUnhealthy, kNow, kNow + minutes(3)), policy_);
  EXPECT_EQ(incident_.first_seen_at, kNow);
  Evaluate(incident_, Pushed(Health::kUnhealthy, kNow + minutes(1), kNow - hours(9)), policy_);
  EXPECT_EQ(incident_.first_seen_at, kNow);  // seen failing already: the first sighting stays
}

TEST_F(PushEngineTest, APendingKeyKeepsTheSourcesStartToo) {
  policy_.unhealthy_polls_to_open = 2;
  const Decision d =
      Evaluate(incident_, Pushed(Health::kUnhealthy, kNow, kNow - hours(1)), policy_);
  EXPECT_EQ(d.reason, Reason::kPending);
  EXPECT_EQ(incident_.first_seen_at, kNow - hours(1));
}

TEST_F(PushEngineTest, ExpireResolvesAnOpenIncidentAtOnceWhateverTheStreakAndMinOpen) {
  policy_.healthy_polls_to_close = 5;
  policy_.min_open = hours(24);
  Evaluate(incident_, Pushed(Health::kUnhealthy, kNow), policy_);
  Evaluate(incident_, Pushed(Health::kHealthy, kNow + minutes(1)), policy_);
  const Decision d = Evaluate(incident_, Expiring(kNow + hours(5)), policy_);
  EXPECT_EQ(d.kind, DecisionKind::kResolve);
  EXPECT_EQ(d.reason, Reason::kExpired);
  EXPECT_EQ(d.transition, TransitionKind::kResolve);
  EXPECT_TRUE(d.changed);
  EXPECT_EQ(d.generation, 1u);
  EXPECT_EQ(incident_.status, IncidentStatus::kResolved);
  EXPECT_EQ(incident_.resolved_at, kNow + hours(5));
  EXPECT_EQ(incident_.last_observed_at, kNow + hours(5));
  EXPECT_STREQ(ReasonName(Reason::kExpired), "expired");

  // Pushed firing again: a new outage, a new generation.
  const Decision again = Evaluate(incident_, Pushed(Health::kUnhealthy, kNow + hours(6)), policy_);
  EXPECT_EQ(again.reason, Reason::kOpen);
  EXPECT_EQ(again.generation, 2u);
}

TEST_F(PushEngineTest, ExpireOnAnythingButAnOpenIncidentIsTheUnknownItCarries) {
  const Decision none = Evaluate(incident_, Expiring(kNow), policy_);
  EXPECT_EQ(none.kind, DecisionKind::kUnknown);
  EXPECT_FALSE(none.changed);
  EXPECT_EQ(incident_.status, IncidentStatus::kNone);

  policy_.healthy_polls_to_close = 1;
  Evaluate(incident_, Pushed(Health::kUnhealthy, kNow), policy_);
  Evaluate(incident_, Pushed(Health::kHealthy, kNow + minutes(1)), policy_);
  ASSERT_EQ(incident_.status, IncidentStatus::kResolved);
  const Incident before = incident_;
  const Decision resolved = Evaluate(incident_, Expiring(kNow + hours(5)), policy_);
  EXPECT_EQ(resolved.kind, DecisionKind::kUnknown);
  EXPECT_EQ(incident_.version, before.version);
  EXPECT_EQ(incident_.resolved_at, before.resolved_at);
}

TEST_F(PushEngineTest, AStaleSweepIsUnknownAndNeverCountsTowardTheHealthyStreak) {
  policy_.healthy_polls_to_close = 2;
  Evaluate(incident_, Pushed(Health::kUnhealthy, kNow), policy_);
  Evaluate(incident_, Pushed(Health::kHealthy, kNow + minutes(1)), policy_);
  const Decision d = Evaluate(incident_, Pushed(Health::kUnknown, kNow + minutes(20)), policy_);
  EXPECT_EQ(d.kind, DecisionKind::kUnknown);
  EXPECT_EQ(incident_.status, IncidentStatus::kOpen);
  EXPECT_EQ(incident_.healthy_streak, 1u);
}

TEST_F(PushEngineTest, AnExpiryNotLaterThanTheLastObservationIsStale) {
  Evaluate(incident_, Pushed(Health::kUnhealthy, kNow), policy_);
  EXPECT_EQ(Evaluate(incident_, Expiring(kNow), policy_).kind, DecisionKind::kStale);
  EXPECT_EQ(incident_.status, IncidentStatus::kOpen);
}

TEST(PushConditionKeyFieldsTest, AnAlertWithoutAKeyLabelIsRefusedNamingItsIndexAndTheLabel) {
  PushCondition c = Alerts();
  c.key = KeyTemplate::Parse("{labels.tenant}:{labels.alertname}").value();
  std::vector<PushedAlert> alerts = {Alert(true, "t1", "DiskFull"), Alert(true, "t2", "Up"),
                                     Alert(true, "t3", "Up")};
  EXPECT_TRUE(CheckKeyFields(c, alerts).ok());
  alerts[2].labels = {{"alertname", "Up"}};  // no tenant: the key would read "-:Up"
  const Status missing = CheckKeyFields(c, alerts);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(missing.error().message,
            "alerts[2].labels.tenant: missing, the key template "
            "\"{labels.tenant}:{labels.alertname}\" needs it");
  alerts[2].labels = {{"alertname", "Up"}, {"tenant", ""}};  // an empty label is no label
  EXPECT_FALSE(CheckKeyFields(c, alerts).ok());
}

TEST(PushConditionKeyFieldsTest, AFieldWithAFallbackMayBeMissing) {
  PushCondition c = Alerts();  // {labels.tenant|no-tenant}:{labels.alertname}
  PushedAlert alert = Alert(true, "t1", "DiskFull");
  alert.labels = {{"alertname", "DiskFull"}};
  const std::vector<PushedAlert> alerts = {alert};
  EXPECT_TRUE(CheckKeyFields(c, alerts).ok());
  EXPECT_EQ(ObservePushedAlerts(c, alerts, kNow)[0].key, "no-tenant:DiskFull");
  c.key = KeyTemplate::Parse("{labels.alertname}/{annotations.team}").value();
  const Status missing = CheckKeyFields(c, alerts);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message.rfind("alerts[0].annotations.team: missing", 0), 0u)
      << missing.error().message;
}

}  // namespace push_condition_test
}  // namespace quell::core
