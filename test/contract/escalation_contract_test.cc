// Escalation tiers on SQLite and PostgreSQL: an ack cancels the tiers not yet paged in its own
// transaction, a dispatcher that claimed a tier before the ack checks again and sends nothing,
// and a resolve by hand reaches only the channels that got the open.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../app/fake_clock.h"
#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/dispatcher.h"
#include "quell/app/operator_commands.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace escalation_contract_test {

using core::OutboxStatus;
using core::TransitionKind;
using std::chrono::minutes;

class PlainRenderer : public core::MessageRenderer {
 public:
  core::Result<core::RenderedMessage> Render(std::string_view,
                                             const core::OutboxRow& row) const override {
    return core::RenderedMessage{row.key, row.key, "error"};
  }
};

class RecordingChannel : public core::Channel {
 public:
  core::SendOutcome Send(const core::Delivery& d) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    sent_.push_back(d);
    return core::SendOutcome::Sent("id-" + d.row.idempotency_key);
  }
  std::vector<core::Delivery> Take() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(sent_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<core::Delivery> sent_;
};

class NoHttp : public core::HttpBatchClient {
 public:
  void SendAll(std::span<const core::HttpExchange>, std::span<const uint32_t>,
               const std::function<void(size_t, core::Result<core::HttpResponse>)>&) override {}
};

const std::string kKey = "acme:db";

class EscalationContractTest : public StoreTest {
 protected:
  // One poll at the clock's time: kKey fails (or recovers), chat at once, pager after 5m.
  void Poll(core::Health health) {
    app::ApplyOptions options;
    options.policy.healthy_polls_to_close = 1;
    options.policy.cooldown = minutes(5);
    options.escalation = {core::EscalationTier{minutes(0), {"chat"}},
                          core::EscalationTier{minutes(5), {"pager"}}};
    app::PollApplier applier(store_->incidents(), encoder_, options);
    core::Observation o;
    o.key = kKey;
    o.condition = "db";
    o.at = clock_.Now();
    o.health = health;
    const std::vector<core::Observation> poll = {o};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied =
        applier.Apply(stream, "poll-" + core::FormatRfc3339(clock_.Now()), clock_.Now(), sink);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
  }
  app::OperatorCommands Commands() {
    return app::OperatorCommands(store_->incidents(), store_->operators(), encoder_,
                                 [](std::string_view) {
                                   return std::optional<app::Route>(
                                       app::Route{.channels = {"chat", "pager"}, .shadow = false});
                                 });
  }
  // One dispatcher round as `owner` on `store` at the clock's time; returns the channels sent.
  std::vector<std::string> Dispatch(core::Store& store, const std::string& owner) {
    app::DispatcherOptions options;
    options.owner = owner;
    app::Dispatcher dispatcher(store.outbox(), renderer_, http_, clock_, options);
    dispatcher.AddChannel("chat", "webhook", chat_);
    dispatcher.AddChannel("pager", "pagerduty", pager_);
    const app::DispatchReport report = dispatcher.RunOnce();
    EXPECT_TRUE(report.errors.empty()) << report.errors.front();
    std::vector<std::string> sent;
    for (const auto& d : chat_.Take()) sent.push_back("chat " + TransitionName(d));
    for (const auto& d : pager_.Take()) sent.push_back("pager " + TransitionName(d));
    return sent;
  }
  static std::string TransitionName(const core::Delivery& d) {
    return core::TransitionName(d.row.transition);
  }
  core::OutboxRow Row(const std::string& channel, TransitionKind transition) {
    auto rows = store_->incidents().ListOutbox(std::nullopt);
    EXPECT_TRUE(rows.ok());
    for (const core::OutboxRow& row : *rows) {
      if (row.channel == channel && row.transition == transition) return row;
    }
    ADD_FAILURE() << "no " << core::TransitionName(transition) << " row on " << channel;
    return {};
  }

  jsonl::JsonPayloadEncoder encoder_;
  PlainRenderer renderer_;
  NoHttp http_;
  RecordingChannel chat_;
  RecordingChannel pager_;
  FakeClock clock_{OutboxEpoch()};
};

TEST_P(EscalationContractTest, WithoutAnAckTheOpenClimbsToTheNextTierAfterItsDelay) {
  Poll(core::Health::kUnhealthy);
  EXPECT_EQ(Dispatch(*store_, "d1"), (std::vector<std::string>{"chat open"}));
  EXPECT_EQ(Row("pager", TransitionKind::kOpen).tier, 2u);  // stored and listed with its tier
  clock_.StepWall(minutes(4));
  EXPECT_TRUE(Dispatch(*store_, "d1").empty());
  clock_.StepWall(minutes(1));
  EXPECT_EQ(Dispatch(*store_, "d1"), (std::vector<std::string>{"pager open"}));
  clock_.StepWall(minutes(1));
  Poll(core::Health::kHealthy);
  EXPECT_EQ(Dispatch(*store_, "d1"), (std::vector<std::string>{"chat resolve", "pager resolve"}));
}

TEST_P(EscalationContractTest, AnAckCancelsThePendingTierInItsTransaction) {
  Poll(core::Health::kUnhealthy);
  EXPECT_EQ(Dispatch(*store_, "d1"), (std::vector<std::string>{"chat open"}));
  clock_.StepWall(minutes(2));
  app::OperatorCommands commands = Commands();
  ASSERT_TRUE(commands.Ack(kKey, "alice", clock_.Now()).ok());
  EXPECT_EQ(Row("pager", TransitionKind::kOpen).status, OutboxStatus::kCancelled);
  clock_.StepWall(minutes(10));
  EXPECT_TRUE(Dispatch(*store_, "d1").empty());
  // The resolve reaches exactly the tiers paged: chat.
  Poll(core::Health::kHealthy);
  EXPECT_EQ(Dispatch(*store_, "d1"), (std::vector<std::string>{"chat resolve"}));
  EXPECT_EQ(Row("pager", TransitionKind::kResolve).status, OutboxStatus::kCancelled);
}

TEST_P(EscalationContractTest, AnAckRacingATiersClaimLeavesThePagerSilent) {
  Poll(core::Health::kUnhealthy);
  EXPECT_EQ(Dispatch(*store_, "d1"), (std::vector<std::string>{"chat open"}));
  clock_.StepWall(minutes(5));
  // Dispatcher A (its own connection) claims the pager's tier just before the ack commits.
  std::optional<core::Store> a;
  Connect(a);
  auto claimed = a->outbox().ClaimDue("A", clock_.Now(), minutes(1), 10);
  ASSERT_TRUE(claimed.ok()) << claimed.error().message;
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].tier, 2u);
  app::OperatorCommands commands = Commands();
  ASSERT_TRUE(commands.Ack(kKey, "alice", clock_.Now()).ok());
  // Dispatcher B cannot take A's lease; A checks again before sending and cancels it.
  std::optional<core::Store> b;
  Connect(b);
  EXPECT_TRUE(Dispatch(*b, "B").empty());
  auto cancelled = a->outbox().CancelUnwantedTierRows("A", *claimed, clock_.Now());
  ASSERT_TRUE(cancelled.ok()) << cancelled.error().message;
  EXPECT_EQ(*cancelled, (std::vector<std::string>{(*claimed)[0].idempotency_key}));
  const core::OutboxRow pager = Row("pager", TransitionKind::kOpen);
  EXPECT_EQ(pager.status, OutboxStatus::kCancelled);
  EXPECT_TRUE(pager.lease_owner.empty());
  // Nothing is left for anyone, even once A's lease would have run out.
  clock_.StepWall(minutes(2));
  EXPECT_TRUE(Dispatch(*b, "B").empty());
  EXPECT_TRUE(Dispatch(*a, "A").empty());
}

TEST_P(EscalationContractTest, ARenotifyWrittenForATierWhoseOpenWasNeverSentIsNotSent) {
  Poll(core::Health::kUnhealthy);
  EXPECT_EQ(Dispatch(*store_, "d1"), (std::vector<std::string>{"chat open"}));
  // The pager's tier is due and its cooldown renotify is written before any dispatcher ran;
  // then an ack cancels the open still pending, and the renotify is checked at its claim.
  clock_.StepWall(minutes(6));
  Poll(core::Health::kUnhealthy);
  EXPECT_EQ(Row("pager", TransitionKind::kRenotify).status, OutboxStatus::kPending);
  app::OperatorCommands commands = Commands();
  ASSERT_TRUE(commands.Ack(kKey, "alice", clock_.Now()).ok());
  EXPECT_EQ(Dispatch(*store_, "d1"), (std::vector<std::string>{"chat renotify"}));
  EXPECT_EQ(Row("pager", TransitionKind::kRenotify).status, OutboxStatus::kCancelled);
}

TEST_P(EscalationContractTest, TheRecheckKeepsATierStillWanted) {
  Poll(core::Health::kUnhealthy);
  clock_.StepWall(minutes(5));
  auto claimed = store_->outbox().ClaimDue("A", clock_.Now(), minutes(1), 10);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 2u);
  auto cancelled = store_->outbox().CancelUnwantedTierRows("A", *claimed, clock_.Now());
  ASSERT_TRUE(cancelled.ok()) << cancelled.error().message;
  EXPECT_TRUE(cancelled->empty());
  EXPECT_EQ(Row("pager", TransitionKind::kOpen).status, OutboxStatus::kInFlight);
}

TEST_P(EscalationContractTest, AResolveByHandCancelsThePendingTierAndSkipsIt) {
  Poll(core::Health::kUnhealthy);
  EXPECT_EQ(Dispatch(*store_, "d1"), (std::vector<std::string>{"chat open"}));
  clock_.StepWall(minutes(1));
  app::OperatorCommands commands = Commands();
  auto resolved = commands.Resolve(kKey, "alice", clock_.Now());
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  EXPECT_EQ(Row("pager", TransitionKind::kOpen).status, OutboxStatus::kCancelled);
  EXPECT_EQ(Row("pager", TransitionKind::kResolve).status, OutboxStatus::kCancelled);
  clock_.StepWall(minutes(10));
  EXPECT_EQ(Dispatch(*store_, "d1"), (std::vector<std::string>{"chat resolve"}));
}

INSTANTIATE_TEST_SUITE_P(Sqlite, EscalationContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, EscalationContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace escalation_contract_test
}  // namespace quell::testing
