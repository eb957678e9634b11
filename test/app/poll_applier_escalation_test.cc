// Escalation tiers through PollApplier: due times, follow-ups to paged tiers only, and the
// cancel of pending tiers when the incident resolves.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "fake_incident_store.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"

namespace quell::app {
namespace poll_applier_escalation_test {

using core::Health;
using core::OutboxStatus;
using core::TransitionKind;
using std::chrono::minutes;

core::WallTime At(int minute) { return core::WallTime(minutes(29'000'000 + minute)); }

class NamePayload : public core::PayloadEncoder {
 public:
  void Encode(const core::Incident& in, core::TransitionKind t, std::string& out) const override {
    out = in.key + ":" + core::TransitionName(t);
  }
};

class Discard : public DecisionSink {
 public:
  void OnDecision(const core::Observation&, const core::Decision&) override {}
  void Reset() override {}
};

class PollApplierEscalationTest : public ::testing::Test {
 protected:
  PollApplierEscalationTest() {
    options_.policy.healthy_polls_to_close = 1;
    options_.policy.cooldown = minutes(3);
    options_.escalation = {core::EscalationTier{minutes(0), {"chat"}},
                           core::EscalationTier{minutes(5), {"pager"}}};
  }
  void Poll(int minute, Health health, const std::string& key = "k") {
    core::Observation o;
    o.key = key;
    o.at = At(minute);
    o.health = health;
    const std::vector<core::Observation> poll = {o};
    VectorObservationStream stream(poll);
    PollApplier applier(store_, payload_, options_);
    Discard discard;
    ASSERT_TRUE(applier.Apply(stream, "p" + std::to_string(minute), At(minute), discard).ok());
  }
  // The rows of `transition` by channel.
  std::map<std::string, core::OutboxRow> Rows(TransitionKind transition) {
    std::map<std::string, core::OutboxRow> out;
    for (const auto& [id, row] : store_.state().outbox) {
      if (row.transition == transition) out[row.channel] = row;
    }
    return out;
  }
  void MarkSent(const std::string& channel, TransitionKind transition) {
    for (auto& [id, row] : store_.state().outbox) {
      if (row.channel == channel && row.transition == transition) row.status = OutboxStatus::kSent;
    }
  }
  testing::FakeIncidentStore store_;
  NamePayload payload_;
  ApplyOptions options_;
};

TEST_F(PollApplierEscalationTest, AnOpenGoesToEveryTierEachDueItsDelayPastTheOpen) {
  Poll(0, Health::kUnhealthy);
  auto opens = Rows(TransitionKind::kOpen);
  ASSERT_EQ(opens.size(), 2u);
  EXPECT_EQ(opens["chat"].tier, 0u);
  EXPECT_EQ(opens["chat"].next_attempt_at, At(0));
  EXPECT_EQ(opens["pager"].tier, 2u);
  EXPECT_EQ(opens["pager"].next_attempt_at, At(5));
  EXPECT_EQ(opens["pager"].status, OutboxStatus::kPending);
}

TEST_F(PollApplierEscalationTest, RenotifiesGoOnlyToTheTiersAlreadyDue) {
  Poll(0, Health::kUnhealthy);
  MarkSent("chat", TransitionKind::kOpen);
  Poll(3, Health::kUnhealthy);  // cooldown renotify before the pager's tier is due
  auto renotifies = Rows(TransitionKind::kRenotify);
  ASSERT_EQ(renotifies.size(), 1u);
  EXPECT_TRUE(renotifies.contains("chat"));
  MarkSent("pager", TransitionKind::kOpen);
  Poll(6, Health::kUnhealthy);  // the next one, with the pager paged
  size_t pager = 0;
  for (const auto& [id, row] : store_.state().outbox) {
    pager += row.channel == "pager" && row.transition == TransitionKind::kRenotify ? 1U : 0U;
  }
  EXPECT_EQ(pager, 1u);
}

TEST_F(PollApplierEscalationTest, AResolveBeforeTheDelayCancelsThePendingTierAndSkipsIt) {
  Poll(0, Health::kUnhealthy);
  MarkSent("chat", TransitionKind::kOpen);
  Poll(2, Health::kHealthy);
  EXPECT_EQ(Rows(TransitionKind::kOpen)["pager"].status, OutboxStatus::kCancelled);
  auto resolves = Rows(TransitionKind::kResolve);
  ASSERT_EQ(resolves.size(), 1u);
  EXPECT_EQ(resolves["chat"].status, OutboxStatus::kPending);
}

TEST_F(PollApplierEscalationTest, AResolveAfterTheDelayReachesEveryPagedTier) {
  Poll(0, Health::kUnhealthy);
  MarkSent("chat", TransitionKind::kOpen);
  MarkSent("pager", TransitionKind::kOpen);
  Poll(7, Health::kHealthy);
  auto resolves = Rows(TransitionKind::kResolve);
  ASSERT_EQ(resolves.size(), 2u);
  EXPECT_EQ(resolves["pager"].status, OutboxStatus::kPending);
  EXPECT_EQ(resolves["pager"].tier, 2u);
}

TEST_F(PollApplierEscalationTest, AFollowUpWhereTheOpenWasNeverLiveGoesInCancelled) {
  Poll(0, Health::kUnhealthy);
  MarkSent("chat", TransitionKind::kOpen);
  // An ack cancelled the pager's open before it was due (OperatorCommands::Ack).
  for (auto& [id, row] : store_.state().outbox) {
    if (row.channel == "pager") row.status = OutboxStatus::kCancelled;
  }
  Poll(7, Health::kHealthy);
  auto resolves = Rows(TransitionKind::kResolve);
  EXPECT_EQ(resolves["chat"].status, OutboxStatus::kPending);
  EXPECT_EQ(resolves["pager"].status, OutboxStatus::kCancelled);
}

TEST_F(PollApplierEscalationTest, ARouteMayEscalateToo) {
  options_.escalation.clear();
  options_.channels = {"chat"};
  core::ChannelRoute route;
  route.match = {{"tenant", "acme"}};
  route.escalation = {core::EscalationTier{minutes(0), {"vip"}},
                      core::EscalationTier{minutes(10), {"pager"}}};
  options_.routes = {route};
  core::Observation o;
  o.key = "acme:db";
  o.at = At(0);
  o.health = Health::kUnhealthy;
  o.labels = {{"tenant", "acme"}};
  const std::vector<core::Observation> poll = {o};
  VectorObservationStream stream(poll);
  PollApplier applier(store_, payload_, options_);
  Discard discard;
  ASSERT_TRUE(applier.Apply(stream, "p", At(0), discard).ok());
  auto opens = Rows(TransitionKind::kOpen);
  ASSERT_EQ(opens.size(), 2u);
  EXPECT_EQ(opens["vip"].tier, 0u);
  EXPECT_EQ(opens["pager"].tier, 2u);
  EXPECT_EQ(opens["pager"].next_attempt_at, At(10));
}

}  // namespace poll_applier_escalation_test
}  // namespace quell::app
