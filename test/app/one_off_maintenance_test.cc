// Adding, expiring and listing one-off maintenance windows (app::OneOffMaintenance) over an
// in-memory operator store; the store's side is in test/contract.
#include "quell/app/one_off_maintenance.h"

#include <gtest/gtest.h>

#include "fake_operator_store.h"

namespace quell::app {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

class OneOffMaintenanceTest : public ::testing::Test {
 protected:
  OneOffRequest Request() {
    OneOffRequest r;
    r.keys = "acme:*";
    r.reason = "db upgrade";
    r.by = "alice";
    r.duration = hours(2);
    return r;
  }
  testing::FakeOperatorStore store_;
  OneOffMaintenance maintenance_{store_};
  const core::WallTime now_ = *core::ParseRfc3339("2026-12-04T12:00:00Z");
};

TEST_F(OneOffMaintenanceTest, AWindowStartsNowByDefaultAndRunsForItsDuration) {
  auto added = maintenance_.Add(Request(), now_);
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_EQ(added->id, 1u);
  EXPECT_EQ(added->name, "one-off");
  EXPECT_EQ(added->starts_at, now_);
  EXPECT_EQ(added->ends_at, now_ + hours(2));
  EXPECT_EQ(added->created_by, "alice");
  EXPECT_EQ(added->created_at, now_);
  EXPECT_TRUE(added->ActiveAt(now_));
  ASSERT_EQ(store_.windows.size(), 1u);
}

TEST_F(OneOffMaintenanceTest, BadRequestsNameTheirFieldAndStoreNothing) {
  auto check = [&](OneOffRequest r, const std::string& field) {
    auto added = maintenance_.Add(r, now_);
    ASSERT_FALSE(added.ok()) << field;
    EXPECT_EQ(added.error().code, core::ErrorCode::kInvalidArgument);
    EXPECT_EQ(added.error().message.rfind(field, 0), 0u) << added.error().message;
  };
  OneOffRequest r = Request();
  r.keys.clear();
  check(r, "keys");
  r = Request();
  r.reason.clear();
  check(r, "reason");
  r = Request();
  r.ends_at = now_ + hours(1);  // and a duration
  check(r, "ends_at, for");
  r = Request();
  r.duration.reset();
  r.starts_at = now_ + hours(3);
  r.ends_at = now_ + hours(2);
  check(r, "ends_at");
  r = Request();
  r.starts_at = now_ - hours(3);  // ended an hour ago
  check(r, "for");
  EXPECT_TRUE(store_.windows.empty());
}

TEST_F(OneOffMaintenanceTest, AnExpiredWindowStaysListedForADay) {
  auto added = maintenance_.Add(Request(), now_);
  ASSERT_TRUE(added.ok());
  auto expired = maintenance_.Expire(added->id, now_ + minutes(10));
  ASSERT_TRUE(expired.ok());
  EXPECT_EQ(expired->ends_at, now_ + minutes(10));
  EXPECT_EQ(maintenance_.Expire(added->id, now_ + minutes(20)).error().code,
            core::ErrorCode::kConflict);
  EXPECT_EQ(maintenance_.Listed(now_ + hours(24))->size(), 1u);
  EXPECT_EQ(maintenance_.Listed(now_ + hours(24) + minutes(10))->size(), 0u);
}

}  // namespace
}  // namespace quell::app
