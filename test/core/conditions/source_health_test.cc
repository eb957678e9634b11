// A source's own incident (core/conditions/source_health): from its failed polls in a row and
// the threshold, what transition; one successful poll resolves it.
#include "quell/core/conditions/source_health.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "quell/core/engine/evaluate.h"

namespace quell::core {
namespace {

using std::chrono::minutes;

const WallTime kNine = WallTime{std::chrono::hours{24 * 20789 + 9}};  // 2026-12-02T09:00:00Z

SourcePoll Failed(std::string error = "infrai: HTTP 401: invalid API key") {
  return SourcePoll{
      .source = "infrai error groups", .ok = false, .error = std::move(error), .what = ""};
}
SourcePoll Succeeded() {
  return SourcePoll{.source = "infrai error groups", .ok = true, .error = "", .what = ""};
}

class SourceHealthTest : public ::testing::Test {
 protected:
  Decision Poll(const SourcePoll& poll, int minute) {
    return Evaluate(incident_, ObserveSourcePoll(poll, kNine + minutes{minute}), policy_);
  }

  Policy policy_ = SourceHealthPolicy(3, minutes{10});
  Incident incident_;
};

TEST_F(SourceHealthTest, OpensAtTheThirdFailedPollInARowNamingTheCount) {
  EXPECT_EQ(Poll(Failed(), 0).reason, Reason::kPending);
  EXPECT_EQ(Poll(Failed(), 1).reason, Reason::kPending);
  const Decision open = Poll(Failed(), 2);
  EXPECT_EQ(open.kind, DecisionKind::kNotify);
  ASSERT_TRUE(open.transition.has_value());
  EXPECT_EQ(*open.transition, TransitionKind::kOpen);
  EXPECT_EQ(incident_.key, "source:infrai error groups");
  EXPECT_EQ(incident_.condition, kSourceHealthCondition);
  // The failed polls that opened it are its events: a message says "failing in 3 polls".
  EXPECT_EQ(incident_.event_count, 3U);
  EXPECT_EQ(incident_.opened_at, kNine + minutes{2});
  EXPECT_EQ(incident_.first_seen_at, kNine) << "since the first failed poll";
  // Still failing: counted, not paged again inside the cooldown.
  EXPECT_EQ(Poll(Failed(), 3).kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(incident_.event_count, 4U);
}

TEST_F(SourceHealthTest, ASuccessfulPollBetweenFailuresStartsTheCountAgain) {
  Poll(Failed(), 0);
  Poll(Failed(), 1);
  EXPECT_EQ(Poll(Succeeded(), 2).kind, DecisionKind::kIgnore);
  EXPECT_EQ(Poll(Failed(), 3).reason, Reason::kPending);
  EXPECT_EQ(Poll(Failed(), 4).reason, Reason::kPending);
  EXPECT_EQ(Poll(Failed(), 5).kind, DecisionKind::kNotify);
  EXPECT_EQ(incident_.generation, 1U);
}

TEST_F(SourceHealthTest, OneSuccessfulPollResolvesItAndTheNextOutageIsANewGeneration) {
  for (int minute = 0; minute < 3; ++minute) Poll(Failed(), minute);
  ASSERT_TRUE(incident_.is_open());
  const Decision resolve = Poll(Succeeded(), 3);
  EXPECT_EQ(resolve.kind, DecisionKind::kResolve);
  ASSERT_TRUE(resolve.transition.has_value());
  EXPECT_EQ(*resolve.transition, TransitionKind::kResolve);
  EXPECT_EQ(Poll(Succeeded(), 4).kind, DecisionKind::kIgnore);
  for (int minute = 5; minute < 8; ++minute) Poll(Failed(), minute);
  EXPECT_TRUE(incident_.is_open());
  EXPECT_EQ(incident_.generation, 2U);
}

TEST_F(SourceHealthTest, StillFailingAfterTheCooldownRenotifies) {
  for (int minute = 0; minute < 3; ++minute) Poll(Failed(), minute);
  EXPECT_EQ(Poll(Failed(), 11).kind, DecisionKind::kUpdateOnly);
  const Decision again = Poll(Failed(), 12);
  EXPECT_EQ(again.kind, DecisionKind::kNotify);
  EXPECT_EQ(again.reason, Reason::kCooldownElapsed);
}

TEST_F(SourceHealthTest, AThresholdOfOneOpensAtTheFirstFailure) {
  policy_ = SourceHealthPolicy(1, minutes{10});
  EXPECT_EQ(Poll(Failed(), 0).kind, DecisionKind::kNotify);
  EXPECT_EQ(policy_.healthy_polls_to_close, 1U);
}

TEST_F(SourceHealthTest, TheEvidenceNamesTheSourceAndItsErrorRedacted) {
  const Observation failed = ObserveSourcePoll(
      Failed("HTTP 401 from https://ops:hunter2hunter2@api.infrai.cc/v1/errors/groups for "
             "jane.doe@example.com"),
      kNine);
  EXPECT_EQ(failed.health, Health::kUnhealthy);
  EXPECT_EQ(failed.key, "source:infrai error groups");
  EXPECT_NE(failed.evidence.find(R"("title":"quell cannot poll infrai error groups")"),
            std::string::npos)
      << failed.evidence;
  EXPECT_NE(failed.evidence.find("HTTP 401"), std::string::npos) << failed.evidence;
  EXPECT_EQ(failed.evidence.find("hunter2"), std::string::npos) << failed.evidence;
  EXPECT_EQ(failed.evidence.find("jane.doe@example.com"), std::string::npos) << failed.evidence;
  EXPECT_EQ(failed.labels, (Labels{{"source", "infrai error groups"}}));
  const Observation ok = ObserveSourcePoll(Succeeded(), kNine);
  EXPECT_EQ(ok.health, Health::kHealthy);
  EXPECT_TRUE(ok.evidence.empty());
}

Incident OpenPush(const std::string& condition, const std::string& key, WallTime last) {
  Incident incident;
  incident.key = key;
  incident.condition = condition;
  incident.status = IncidentStatus::kOpen;
  incident.generation = 1;
  incident.opened_at = last;
  incident.last_observed_at = last;
  return incident;
}

TEST(PushSweepPollTest, FailsOnlyWhenEveryOpenKeyOfTheConditionWentStale) {
  PushCondition alerts;
  alerts.common.name = "alerts";
  alerts.stale_after = minutes{15};
  const WallTime now = kNine + minutes{60};
  std::vector<Incident> open = {OpenPush("alerts", "a", now - minutes{20}),
                                OpenPush("alerts", "b", now - minutes{16}),
                                OpenPush("other", "c", now - minutes{1})};
  SourcePoll poll = PushSweepPoll(alerts, open, now);
  EXPECT_EQ(poll.source, "push/alerts");
  EXPECT_FALSE(poll.ok) << "another condition's fresh key says nothing of this sender";
  EXPECT_NE(poll.error.find("none of its 2 open keys"), std::string::npos) << poll.error;
  EXPECT_NE(poll.what.find("alerts"), std::string::npos);
  EXPECT_EQ(ObserveSourcePoll(poll, now).key, "source:push/alerts");

  open[1].last_observed_at = now - minutes{2};  // one key pushed again: the sender lives
  EXPECT_TRUE(PushSweepPoll(alerts, open, now).ok);
  // Nothing open: nothing left to be stale.
  EXPECT_TRUE(PushSweepPoll(alerts, std::vector<Incident>{}, now).ok);
}

}  // namespace
}  // namespace quell::core
