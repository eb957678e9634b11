// Grouped notifications end to end inside the process: the poll applier writes members, the
// dispatcher assembles and delivers group messages, on SQLite and PostgreSQL with a fake clock.
#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "../app/fake_clock.h"
#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/dispatcher.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/delivery/grouping.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using core::OutboxStatus;
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

// Records every delivery it is handed and accepts it.
class RecordingChannel : public core::Channel {
 public:
  core::SendOutcome Send(const core::Delivery& d) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    sent_.push_back(d);
    return core::SendOutcome::Sent("id-" + std::to_string(sent_.size()));
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

std::string Key(int i) { return "t" + std::to_string(i) + ":model-answer"; }

class GroupedDispatchTest : public StoreTest {
 protected:
  void SetUpStore() override {
    policy_.group_by = {"condition"};
    policy_.group_wait = seconds(30);
    policy_.group_interval = minutes(5);
  }

  // One poll at the clock's time: keys [0, unhealthy) fail, [unhealthy, total) are healthy.
  void Poll(int unhealthy, int total, bool grouped = true, uint32_t budget = 0) {
    app::ApplyOptions options;
    options.tenant_budget_per_hour = budget;
    options.channels = {"ops"};
    options.policy.cooldown = minutes(2);
    options.policy.healthy_polls_to_close = 1;
    if (grouped) options.grouping.emplace("ops", policy_);
    app::PollApplier applier(store_->incidents(), encoder_, options);
    std::vector<core::Observation> poll;
    for (int i = 0; i < total; ++i) {
      core::Observation o;
      o.key = Key(i);
      o.at = clock_.Now();
      o.condition = "model-answer";
      o.health = i < unhealthy ? core::Health::kUnhealthy : core::Health::kHealthy;
      poll.push_back(std::move(o));
    }
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied =
        applier.Apply(stream, "poll-" + core::FormatRfc3339(clock_.Now()), clock_.Now(), sink);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
  }

  app::DispatchReport Dispatch(bool grouped = true) {
    app::Dispatcher dispatcher(store_->outbox(), renderer_, http_, clock_, Options());
    app::ChannelLimits limits;
    if (grouped) limits.grouping = policy_;
    dispatcher.AddChannel("ops", "webhook", channel_, limits);
    app::DispatchReport report = dispatcher.RunOnce();
    EXPECT_TRUE(report.errors.empty()) << report.errors.front();
    return report;
  }

  static app::DispatcherOptions Options() {
    app::DispatcherOptions options;
    options.owner = "d1";
    return options;
  }

  core::GroupPolicy policy_;
  jsonl::JsonPayloadEncoder encoder_;
  PlainRenderer renderer_;
  NoHttp http_;
  RecordingChannel channel_;
  FakeClock clock_{OutboxEpoch()};
};

TEST_P(GroupedDispatchTest, TwoHundredOpensInOneRoundGiveOneMessageAfterGroupWait) {
  const core::WallTime t0 = clock_.Now();
  Poll(200, 200);
  app::DispatchReport report = Dispatch();
  EXPECT_EQ(report.claimed, 0u);
  EXPECT_TRUE(channel_.Take().empty());
  ASSERT_TRUE(report.next_due.has_value());
  EXPECT_EQ(*report.next_due, t0 + seconds(30));  // the dispatch loop wakes for it

  clock_.SleepFor(seconds(29));
  Dispatch();
  EXPECT_TRUE(channel_.Take().empty());
  clock_.SleepFor(seconds(1));
  report = Dispatch();
  EXPECT_EQ(report.groups_built, 1u);
  const auto sent = channel_.Take();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].row.key, "{group}:condition=model-answer");
  EXPECT_EQ(sent[0].row.idempotency_key,
            core::OutboxIdempotencyKey("{group}:condition=model-answer", 1, 1, "ops"));
  const json payload = json::parse(sent[0].row.payload);
  EXPECT_EQ(payload["group"]["key"], "condition=model-answer");
  EXPECT_EQ(payload["group"]["sequence"], 1);
  EXPECT_EQ(payload["group"]["labels"], json({{"condition", "model-answer"}}));
  EXPECT_EQ(payload["group"]["counts"],
            json({{"members", 200}, {"open", 200}, {"renotify", 0}, {"resolve", 0}}));
  EXPECT_EQ(payload["group"]["open_after"], 200);
  ASSERT_EQ(payload["group"]["members"].size(), 200u);
  std::set<std::string> keys;
  for (const json& member : payload["group"]["members"]) keys.insert(member["key"]);
  EXPECT_EQ(keys.size(), 200u);
  // A group row is rendered by the channel's renderer, like any row.
  EXPECT_EQ(sent[0].message.subject, sent[0].row.key);
  // Nothing else is due: the next round sends nothing and waits for the next poll.
  report = Dispatch();
  EXPECT_TRUE(channel_.Take().empty());
  EXPECT_FALSE(report.next_due.has_value());
}

TEST_P(GroupedDispatchTest, RenotifiesAndResolvesAreFoldedIntoTheNextMessageAfterGroupInterval) {
  const core::WallTime t0 = clock_.Now();
  Poll(200, 200);
  clock_.SleepFor(seconds(30));
  Dispatch();
  ASSERT_EQ(channel_.Take().size(), 1u);

  // Three minutes in, past the two-minute cooldown: t0 still fails (renotify), t1 is healthy
  // (resolve); the other keys are not observed by this poll.
  clock_.SleepFor(minutes(2) + seconds(30));
  Poll(1, 2);  // t0 unhealthy, t1 healthy
  app::DispatchReport report = Dispatch();
  EXPECT_TRUE(channel_.Take().empty());  // group_interval holds
  ASSERT_TRUE(report.next_due.has_value());
  EXPECT_EQ(*report.next_due, t0 + seconds(30) + minutes(5));

  clock_.SleepFor(*report.next_due - clock_.Now());
  Dispatch();
  const auto sent = channel_.Take();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].row.generation, 2u);
  EXPECT_EQ(sent[0].row.transition, core::TransitionKind::kRenotify);
  const json group = json::parse(sent[0].row.payload)["group"];
  EXPECT_EQ(group["counts"], json({{"members", 2}, {"open", 0}, {"renotify", 1}, {"resolve", 1}}));
  EXPECT_EQ(group["open_after"], 199);
  EXPECT_EQ(group["members"][0]["key"], Key(0));
  EXPECT_EQ(group["members"][0]["transition"], "renotify");
  EXPECT_EQ(group["members"][1]["key"], Key(1));
  EXPECT_EQ(group["members"][1]["transition"], "resolve");
}

TEST_P(GroupedDispatchTest, GroupingOffGivesOneRowAndOneMessagePerTransition) {
  Poll(200, 200, /*grouped=*/false);
  auto rows = store_->incidents().ListOutbox(std::nullopt);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 200u);
  for (const core::OutboxRow& row : *rows) {
    EXPECT_EQ(row.status, OutboxStatus::kPending);
    EXPECT_EQ(row.idempotency_key, core::OutboxIdempotencyKey(row.key, 1, 1, "ops"));
  }
  app::DispatchReport report = Dispatch(/*grouped=*/false);
  EXPECT_EQ(report.groups_built, 0u);
  const auto sent = channel_.Take();
  ASSERT_EQ(sent.size(), 200u);
  for (const core::Delivery& d : sent) {
    EXPECT_FALSE(core::IsGroupKey(d.row.key));
    EXPECT_EQ(d.message.subject, d.row.key);  // the channel's renderer, as today
  }
}

TEST_P(GroupedDispatchTest, GroupedRowsAreNeverFoldedByTheTenantBudget) {
  // Each tenant's open, then its renotify in the same hour: past a budget of one per hour,
  // the renotifies would be folded (and a digest row written per tenant) were they not grouped.
  Poll(200, 200, /*grouped=*/true, /*budget=*/1);
  clock_.SleepFor(minutes(3));
  Poll(200, 200, /*grouped=*/true, /*budget=*/1);
  auto rows = store_->incidents().ListOutbox(std::nullopt);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 400u);  // no digest row either
  for (const core::OutboxRow& row : *rows) EXPECT_EQ(row.status, OutboxStatus::kGrouped);
}

// What the incident page reads of a grouped member: the group message that took each of its
// rows, and its sends counted once that message went.
TEST_P(GroupedDispatchTest, AMembersRowsNameTheirGroupMessageAndCountAsSentWithIt) {
  Poll(2, 2);
  clock_.SleepFor(seconds(30));
  Dispatch();
  const auto sent = channel_.Take();
  ASSERT_EQ(sent.size(), 1u);
  const std::string group_row = sent[0].row.idempotency_key;

  auto rows = store_->operators().RecentOutbox(Key(1), 10);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].status, OutboxStatus::kGrouped);
  EXPECT_EQ((*rows)[0].group_key, "condition=model-answer");
  EXPECT_EQ((*rows)[0].group_row, group_row);

  auto groups = store_->operators().GroupMessagesOf(Key(1), 10);
  ASSERT_TRUE(groups.ok()) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ((*groups)[0].idempotency_key, group_row);
  EXPECT_EQ((*groups)[0].key, "{group}:condition=model-answer");
  EXPECT_EQ((*groups)[0].status, OutboxStatus::kSent);
  EXPECT_EQ((*groups)[0].remote_message_id, "id-1");
  EXPECT_TRUE((*groups)[0].payload.empty());

  core::IncidentPageQuery one;
  one.key = Key(1);
  auto page = store_->operators().ListIncidentPage(one);
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_EQ(page->total, 1u);
  ASSERT_EQ(page->incidents.size(), 1u);
  EXPECT_EQ(page->incidents[0].incident.key, Key(1));
  EXPECT_EQ(page->incidents[0].notifications_sent, 1u);

  // The resolve waits for the group's next message: listed without a group message yet.
  clock_.SleepFor(seconds(1));
  Poll(1, 2);
  rows = store_->operators().RecentOutbox(Key(1), 10);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].transition, core::TransitionKind::kResolve);
  EXPECT_EQ((*rows)[0].group_row, "");
  EXPECT_EQ((*store_->operators().GroupMessagesOf(Key(1), 10)).size(), 1u);
  EXPECT_TRUE(store_->operators().GroupMessagesOf("no:such:key", 10)->empty());
}

INSTANTIATE_TEST_SUITE_P(Sqlite, GroupedDispatchTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, GroupedDispatchTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
