// One-off maintenance windows in the store (OperatorStore: add, list, expire), on SQLite and
// PostgreSQL.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "outbox_test_support.h"
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

INSTANTIATE_TEST_SUITE_P(Sqlite, OneOffWindowContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, OneOffWindowContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
