// Where grouping meets silences and escalation, on SQLite and PostgreSQL: a group message's
// counts are the store's at send time (OutboxStore::GroupStandingAt), a silenced member's
// resolve still reaches its group, and a grouped escalation tier pages once per outage when the
// tier is due, its waiting opens cancelled by an ack like an ungrouped tier's.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
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
#include "quell/core/delivery/group_plan.h"
#include "quell/core/delivery/grouping.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using core::OutboxStatus;
using core::TransitionKind;
using nlohmann::json;
using std::chrono::minutes;
using std::chrono::seconds;

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

class GroupPolicyContractTest : public StoreTest {
 protected:
  void SetUpStore() override {
    policy_.group_by = {"condition"};
    policy_.group_wait = seconds(30);
    policy_.group_interval = minutes(1);
  }

  // One poll at the clock's time: each key fails (true) or recovers (false).
  void Poll(const std::vector<std::pair<std::string, bool>>& keys) {
    app::ApplyOptions options;
    options.policy.healthy_polls_to_close = 1;
    options.policy.cooldown = cooldown_;
    if (escalate_) {
      options.escalation = {core::EscalationTier{minutes(0), {"chat"}},
                            core::EscalationTier{minutes(5), {"pager"}}};
      options.grouping.emplace("pager", policy_);
    } else {
      options.channels = {"chat"};
      options.grouping.emplace("chat", policy_);
    }
    app::PollApplier applier(store_->incidents(), encoder_, options);
    std::vector<core::Observation> poll;
    for (const auto& [key, failing] : keys) {
      core::Observation o;
      o.key = key;
      o.condition = "answers";
      o.at = clock_.Now();
      o.health = failing ? core::Health::kUnhealthy : core::Health::kHealthy;
      poll.push_back(std::move(o));
    }
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied =
        applier.Apply(stream, "poll-" + core::FormatRfc3339(clock_.Now()), clock_.Now(), sink);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
  }

  // One dispatcher round at the clock's time; what `of` was handed (the other channel's
  // deliveries are kept in chat_sent_ and pager_sent_ alike).
  std::vector<core::Delivery> Dispatch(RecordingChannel& of) {
    app::DispatcherOptions options;
    options.owner = "d1";
    app::Dispatcher dispatcher(store_->outbox(), renderer_, http_, clock_, options);
    app::ChannelLimits grouped;
    grouped.grouping = policy_;
    dispatcher.AddChannel("chat", "webhook", chat_, escalate_ ? app::ChannelLimits{} : grouped);
    dispatcher.AddChannel("pager", "pagerduty", pager_, grouped);
    const app::DispatchReport report = dispatcher.RunOnce();
    EXPECT_TRUE(report.errors.empty()) << report.errors.front();
    chat_sent_ = chat_.Take();
    pager_sent_ = pager_.Take();
    return &of == &chat_ ? chat_sent_ : pager_sent_;
  }

  void Silence(const std::string& pattern) {
    core::Silence silence{0,       pattern, clock_.Now() + std::chrono::hours(2),
                          "on it", "ana",   clock_.Now()};
    auto added = store_->operators().AddSilence(silence);
    ASSERT_TRUE(added.ok()) << added.error().message;
  }

  // The open incidents as the store lists them (what GET /v1/incidents?status=open counts).
  size_t OpenIncidents() {
    auto open = store_->incidents().ListOpenIncidents("answers");
    EXPECT_TRUE(open.ok()) << open.error().message;
    return open.ok() ? open->size() : 0;
  }

  static json Group(const core::Delivery& d) { return json::parse(d.row.payload)["group"]; }

  static std::vector<std::string> Members(const core::Delivery& d) {
    std::vector<std::string> out;
    const json group = Group(d);
    for (const json& m : group["members"]) {
      out.push_back(m["key"].get<std::string>() + "/" + m["transition"].get<std::string>());
    }
    return out;
  }

  core::GroupPolicy policy_;
  core::Duration cooldown_ = std::chrono::hours(1);
  bool escalate_ = false;
  jsonl::JsonPayloadEncoder encoder_;
  PlainRenderer renderer_;
  NoHttp http_;
  RecordingChannel chat_;
  RecordingChannel pager_;
  std::vector<core::Delivery> chat_sent_;
  std::vector<core::Delivery> pager_sent_;
  FakeClock clock_{OutboxEpoch()};
};

// The outage in small: five members open together, a silence then covers three, and
// all recover. Each message's standing agrees with the store's open incidents when it is sent,
// and the silenced members' resolves reach the group, so the last message says all resolved.
TEST_P(GroupPolicyContractTest, EveryMessageCountsTheStoresMembersAtSendTime) {
  Poll({{"a1", true}, {"a2", true}, {"s1", true}, {"s2", true}, {"s3", true}});
  clock_.StepWall(seconds(30));
  auto sent = Dispatch(chat_);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(Group(sent[0])["standing"], (json{{"open", 5}, {"silenced", 0}}));

  clock_.StepWall(minutes(1));
  Silence("s*");
  Poll({{"a1", false}, {"a2", true}, {"s1", true}, {"s2", true}, {"s3", true}});
  clock_.StepWall(seconds(30));
  sent = Dispatch(chat_);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(Members(sent[0]), (std::vector<std::string>{"a1/resolve"}));
  EXPECT_EQ(Group(sent[0])["standing"], (json{{"open", 1}, {"silenced", 3}}));
  EXPECT_EQ(OpenIncidents(), 4u);

  clock_.StepWall(minutes(1));
  Poll({{"a1", false}, {"a2", false}, {"s1", false}, {"s2", false}, {"s3", false}});
  clock_.StepWall(seconds(30));
  sent = Dispatch(chat_);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(Members(sent[0]),
            (std::vector<std::string>{"a2/resolve", "s1/resolve", "s2/resolve", "s3/resolve"}));
  EXPECT_EQ(Group(sent[0])["standing"], (json{{"open", 0}, {"silenced", 0}}));
  EXPECT_EQ(Group(sent[0])["open_after"], 0);
  EXPECT_EQ(OpenIncidents(), 0u);

  // A key that opened under the silence was never in a message: its resolve is cancelled.
  clock_.StepWall(minutes(1));
  Poll({{"s9", true}});
  clock_.StepWall(minutes(1));
  Poll({{"s9", false}});
  clock_.StepWall(minutes(2));
  EXPECT_TRUE(Dispatch(chat_).empty());
  auto rows = store_->incidents().ListOutbox(std::nullopt);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  for (const core::OutboxRow& row : *rows) {
    if (row.key != "s9") continue;
    EXPECT_EQ(row.status, row.transition == TransitionKind::kOpen ? OutboxStatus::kSilenced
                                                                  : OutboxStatus::kCancelled)
        << core::TransitionName(row.transition);
  }
}

// The counts are read when the message goes out, not when it was built: a member that resolves
// while the message waits (a retry, SMS pacing) is no longer counted open.
TEST_P(GroupPolicyContractTest, TheStandingIsReadAtSendTimeNotAtAssembly) {
  Poll({{"a1", true}, {"a2", true}});
  clock_.StepWall(seconds(30));
  auto built = store_->outbox().AssembleGroup(
      "chat", "condition=answers", clock_.Now(),
      core::GroupPlannerFor(policy_.group_wait, policy_.group_interval));
  ASSERT_TRUE(built.ok()) << built.error().message;
  ASSERT_TRUE(built->has_value());
  Poll({{"a1", false}});
  auto standing =
      store_->outbox().GroupStandingAt("chat", "condition=answers", clock_.Now() + seconds(1));
  ASSERT_TRUE(standing.ok()) << standing.error().message;
  EXPECT_EQ(standing->open, 1u);
  EXPECT_EQ(standing->silenced, 0u);
  // A silence covering the other makes it silenced while the silence lasts.
  Silence("a2");
  standing = store_->outbox().GroupStandingAt("chat", "condition=answers", clock_.Now());
  ASSERT_TRUE(standing.ok());
  EXPECT_EQ(standing->open, 0u);
  EXPECT_EQ(standing->silenced, 1u);
  standing = store_->outbox().GroupStandingAt("chat", "condition=answers",
                                              clock_.Now() + std::chrono::hours(3));
  ASSERT_TRUE(standing.ok());
  EXPECT_EQ(standing->open, 1u);
  // Another group, or another channel, has nothing of these.
  standing = store_->outbox().GroupStandingAt("pager", "condition=answers", clock_.Now());
  ASSERT_TRUE(standing.ok());
  EXPECT_EQ(standing->open + standing->silenced, 0u);
}

// A grouped later tier: its opens wait in the group until the tier is due, then go out as one
// message for the outage; the first tier still pages each key at once.
TEST_P(GroupPolicyContractTest, AGroupedTierPagesOnceForTheOutageWhenItIsDue) {
  escalate_ = true;
  Poll({{"k1", true}, {"k2", true}, {"k3", true}});
  EXPECT_EQ(Dispatch(chat_).size(), 3u);
  auto waiting = store_->outbox().WaitingGroups();
  ASSERT_TRUE(waiting.ok()) << waiting.error().message;
  ASSERT_EQ(waiting->size(), 1u);
  EXPECT_EQ((*waiting)[0].first_waiting, OutboxEpoch() + minutes(5));  // the tier's time
  clock_.StepWall(minutes(5));
  EXPECT_TRUE(Dispatch(pager_).empty());  // group_wait counts from the tier's time
  clock_.StepWall(seconds(30));
  const auto paged = Dispatch(pager_);
  ASSERT_EQ(paged.size(), 1u);
  EXPECT_EQ(paged[0].row.key, "{group}:condition=answers");
  EXPECT_EQ(Members(paged[0]), (std::vector<std::string>{"k1/open", "k2/open", "k3/open"}));
  // The resolves reach the tier that was paged, grouped too.
  clock_.StepWall(minutes(1));
  Poll({{"k1", false}, {"k2", false}, {"k3", false}});
  clock_.StepWall(seconds(30));
  EXPECT_EQ(Dispatch(chat_).size(), 3u);
  const auto resolved = pager_sent_;  // the same round
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(Group(resolved[0])["open_after"], 0);
}

// An ack cancels a grouped tier's open still waiting for its time, as it cancels an ungrouped
// one: the tier's message names only the keys nobody acked.
TEST_P(GroupPolicyContractTest, AnAckCancelsAGroupedTiersWaitingOpen) {
  escalate_ = true;
  Poll({{"k1", true}, {"k2", true}});
  EXPECT_EQ(Dispatch(chat_).size(), 2u);
  clock_.StepWall(minutes(2));
  app::OperatorCommands commands(store_->incidents(), store_->operators(), encoder_,
                                 [](std::string_view) {
                                   return std::optional<app::Route>(
                                       app::Route{.channels = {"chat", "pager"}, .shadow = false});
                                 });
  ASSERT_TRUE(commands.Ack("k1", "ana", clock_.Now()).ok());
  clock_.StepWall(minutes(4));
  const auto paged = Dispatch(pager_);
  ASSERT_EQ(paged.size(), 1u);
  EXPECT_EQ(Members(paged[0]), (std::vector<std::string>{"k2/open"}));
  auto rows = store_->incidents().ListOutbox(OutboxStatus::kCancelled);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].key, "k1");
  EXPECT_EQ((*rows)[0].channel, "pager");
}

// A renotify written for a grouped tier while the tier's open still waits in the group (its
// group_wait) goes with that open when an ack cancels it: the tier never hears of the key.
TEST_P(GroupPolicyContractTest, AnAckCancelsAFollowUpWaitingBesideTheTiersOpen) {
  escalate_ = true;
  cooldown_ = minutes(5);
  Poll({{"k1", true}});
  EXPECT_EQ(Dispatch(chat_).size(), 1u);
  clock_.StepWall(minutes(5));
  Poll({{"k1", true}});  // the cooldown's renotify, to chat and to the tier now due
  clock_.StepWall(seconds(10));
  app::OperatorCommands commands(store_->incidents(), store_->operators(), encoder_,
                                 [](std::string_view) {
                                   return std::optional<app::Route>(
                                       app::Route{.channels = {"chat", "pager"}, .shadow = false});
                                 });
  ASSERT_TRUE(commands.Ack("k1", "ana", clock_.Now()).ok());
  clock_.StepWall(minutes(1));
  EXPECT_TRUE(Dispatch(pager_).empty());
  auto rows = store_->incidents().ListOutbox(std::nullopt);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  size_t pager_rows = 0;
  for (const core::OutboxRow& row : *rows) {
    if (row.channel != "pager") continue;
    ++pager_rows;
    EXPECT_EQ(row.status, OutboxStatus::kCancelled) << core::TransitionName(row.transition);
  }
  EXPECT_EQ(pager_rows, 2u);
}

// Members that share a commit time are listed by their keys' bytes, then version: the same
// order on both stores, whatever the database's collation.
TEST_P(GroupPolicyContractTest, MembersAreListedInOneOrderOnEveryStore) {
  const core::WallTime t0 = OutboxEpoch();
  std::vector<core::OutboxRow> rows;
  for (const char* key : {"b", "\xC3\xA9", "B", "a"}) {
    for (const uint64_t version : {uint64_t{2}, uint64_t{1}}) {
      core::OutboxRow row = PendingRow(key, 1, version, "chat", t0);
      row.status = OutboxStatus::kGrouped;
      row.group_key = "condition=answers";
      rows.push_back(std::move(row));
    }
  }
  ASSERT_EQ(InsertRows(store_->incidents(), rows), "");
  auto built = store_->outbox().AssembleGroup("chat", "condition=answers", t0,
                                              core::GroupPlannerFor(seconds(0), seconds(0)));
  ASSERT_TRUE(built.ok()) << built.error().message;
  ASSERT_TRUE(built->has_value());
  auto members = store_->outbox().GroupMembers((*built)->idempotency_key);
  ASSERT_TRUE(members.ok()) << members.error().message;
  std::vector<std::string> order;
  for (const core::OutboxRow& m : *members) order.push_back(m.key + std::to_string(m.version));
  EXPECT_EQ(order, (std::vector<std::string>{"B1", "B2", "a1", "a2", "b1", "b2",
                                             "\xC3\xA9"
                                             "1",
                                             "\xC3\xA9"
                                             "2"}));
}

// HeardChannels: where a generation's open was told (sent, or still to be), not silenced or
// held.
TEST_P(GroupPolicyContractTest, HeardChannelsAreWhereARowWasOrWillBeSent) {
  const core::WallTime t0 = OutboxEpoch();
  std::vector<core::OutboxRow> rows;
  const std::pair<const char*, OutboxStatus> channels[] = {
      {"grouped", OutboxStatus::kGrouped}, {"pending", OutboxStatus::kPending},
      {"quiet", OutboxStatus::kSilenced},  {"muted", OutboxStatus::kMuted},
      {"shadow", OutboxStatus::kShadow},   {"folded", OutboxStatus::kFolded}};
  for (const auto& [channel, status] : channels) {
    core::OutboxRow row = PendingRow("k", 3, 1, channel, t0);
    row.status = status;
    rows.push_back(std::move(row));
  }
  rows.push_back(PendingRow("k", 2, 1, "old", t0));  // another generation
  ASSERT_EQ(InsertRows(store_->incidents(), rows), "");
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok()) << tx.error().message;
  const std::pair<std::string, uint64_t> generations[] = {{"k", 3}};
  auto heard = (*tx)->HeardChannels(generations);
  ASSERT_TRUE(heard.ok()) << heard.error().message;
  std::vector<std::string> names;
  for (const core::GenerationChannel& use : *heard) {
    EXPECT_EQ(use.key, "k");
    EXPECT_EQ(use.generation, 3u);
    names.push_back(use.channel);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"folded", "grouped", "pending"}));
}

INSTANTIATE_TEST_SUITE_P(Sqlite, GroupPolicyContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, GroupPolicyContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
