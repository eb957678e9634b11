// One-off maintenance windows in the store (OperatorStore: add, list, expire), on SQLite and
// PostgreSQL.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/one_off_maintenance.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

class OneOffWindowContractTest : public StoreTest {
 protected:
  core::OneOffWindow Window(const std::string& name, core::WallTime starts, core::WallTime ends) {
    core::OneOffWindow w;
    w.name = name;
    w.keys = "acme:*";
    w.labels = {{"tenant", "acme"}};
    w.starts_at = starts;
    w.ends_at = ends;
    w.reason = "db upgrade";
    w.created_by = "alice";
    w.created_at = t0_;
    return w;
  }
  const core::WallTime t0_ = OutboxEpoch();
};

TEST_P(OneOffWindowContractTest, WindowsAreListedNewestStartFirstWhileTheyEndAfterTheCutoff) {
  auto early = store_->operators().AddOneOffWindow(Window("early", t0_, t0_ + hours(1)));
  auto late = store_->operators().AddOneOffWindow(Window("late", t0_ + hours(2), t0_ + hours(3)));
  ASSERT_TRUE(early.ok() && late.ok()) << (early.ok() ? late.error() : early.error()).message;
  EXPECT_LT(*early, *late);

  auto all = store_->operators().ListOneOffWindows(t0_ - hours(24));
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].name, "late");
  EXPECT_EQ((*all)[1].id, *early);
  EXPECT_EQ((*all)[1].keys, "acme:*");
  EXPECT_EQ((*all)[1].labels, (core::Labels{{"tenant", "acme"}}));
  EXPECT_EQ((*all)[1].starts_at, t0_);
  EXPECT_EQ((*all)[1].ends_at, t0_ + hours(1));
  EXPECT_EQ((*all)[1].reason, "db upgrade");
  EXPECT_EQ((*all)[1].created_by, "alice");
  EXPECT_EQ((*all)[1].created_at, t0_);

  auto after_early = store_->operators().ListOneOffWindows(t0_ + hours(1));  // ends exactly then
  ASSERT_TRUE(after_early.ok());
  ASSERT_EQ(after_early->size(), 1u);
  EXPECT_EQ((*after_early)[0].name, "late");
}

TEST_P(OneOffWindowContractTest, ExpiringEndsAWindowNowOnceAndUnknownIdsAreNotFound) {
  auto id = store_->operators().AddOneOffWindow(Window("w", t0_, t0_ + hours(2)));
  ASSERT_TRUE(id.ok());
  auto expired = store_->operators().ExpireOneOffWindow(*id, t0_ + minutes(30));
  ASSERT_TRUE(expired.ok()) << expired.error().message;
  EXPECT_EQ(expired->ends_at, t0_ + minutes(30));
  EXPECT_EQ(expired->name, "w");
  EXPECT_FALSE(expired->ActiveAt(t0_ + minutes(30)));
  EXPECT_TRUE(expired->ActiveAt(t0_ + minutes(29)));

  auto again = store_->operators().ExpireOneOffWindow(*id, t0_ + minutes(40));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, core::ErrorCode::kConflict);
  auto unknown = store_->operators().ExpireOneOffWindow(*id + 100, t0_);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, core::ErrorCode::kNotFound);

  auto listed = store_->operators().ListOneOffWindows(t0_);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);  // kept, with the expiry as its end
  EXPECT_EQ((*listed)[0].ends_at, t0_ + minutes(30));
}

// As the poller applies them: the store's windows beside the configured ones at every poll.
TEST_P(OneOffWindowContractTest, AnOpenMutedByAWindowIsSentAtThePollAfterItIsExpired) {
  jsonl::JsonPayloadEncoder encoder;
  auto poll = [&](core::WallTime at) {
    app::ApplyOptions options;
    options.channels = {"webhook"};
    auto windows = store_->operators().ListOneOffWindows(at - app::kOneOffListedFor);
    EXPECT_TRUE(windows.ok());
    for (const core::OneOffWindow& w : *windows) {
      options.maintenance.push_back(app::AsMaintenanceWindow(w));
    }
    app::PollApplier applier(store_->incidents(), encoder, options);
    core::Observation o;
    o.key = "acme:db";
    o.at = at;
    o.health = core::Health::kUnhealthy;
    o.condition = "c";
    o.labels = {{"tenant", "acme"}};
    const std::vector<core::Observation> observations = {o};
    app::VectorObservationStream stream(observations);
    NullSink sink;
    auto applied = applier.Apply(stream, "poll-" + core::FormatRfc3339(at), at, sink);
    EXPECT_TRUE(applied.ok()) << applied.error().message;
    return applied.ok() ? *applied : app::ApplySummary{};
  };
  auto id = store_->operators().AddOneOffWindow(Window("db", t0_, t0_ + hours(2)));
  ASSERT_TRUE(id.ok());

  const app::ApplySummary opened = poll(t0_ + minutes(1));
  EXPECT_EQ(opened.outbox_muted, 1u);
  EXPECT_EQ(store_->incidents().ListOutbox(core::OutboxStatus::kPending)->size(), 0u);
  EXPECT_EQ(poll(t0_ + minutes(2)).maintenance_opens, 0u);  // still inside: nothing yet

  ASSERT_TRUE(store_->operators().ExpireOneOffWindow(*id, t0_ + minutes(3)).ok());
  const app::ApplySummary after = poll(t0_ + minutes(4));
  EXPECT_EQ(after.maintenance_opens, 1u);
  auto pending = store_->incidents().ListOutbox(core::OutboxStatus::kPending);
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 1u);  // the late open, once
  EXPECT_EQ((*pending)[0].key, "acme:db");
  EXPECT_EQ(poll(t0_ + minutes(5)).maintenance_opens, 0u);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, OneOffWindowContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, OneOffWindowContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
