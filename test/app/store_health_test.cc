#include "quell/app/store_health.h"

#include <gtest/gtest.h>

namespace quell::app {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

core::Status Failed(const std::string& message) {
  return core::MakeError(core::ErrorCode::kUnavailable, message);
}

TEST(StoreHealthTest, AFailedWriteMakesItUnhealthyUntilThatSideWritesAgain) {
  StoreHealth health;
  EXPECT_TRUE(health.Status().ok());
  health.OnStoreWrites("poll", Failed("cannot write database /q.db: database or disk is full"));
  ASSERT_FALSE(health.Status().ok());
  EXPECT_EQ(health.Status().error().message,
            "poll: cannot write database /q.db: database or disk is full");
  // The dispatcher's claims may still go through; that does not hide the poll's failure.
  health.OnStoreWrites("dispatch", {});
  EXPECT_FALSE(health.Status().ok());
  health.OnStoreWrites("poll", {});
  EXPECT_TRUE(health.Status().ok());
}

TEST(StoreOutageTest, BacksOffFromAHundredMillisecondsToFiveSecondsAndSaysOnlyStartAndEnd) {
  StoreOutage outage;
  const auto idle = milliseconds(100);
  EXPECT_EQ(outage.Observe(""), StoreOutage::Change::kNone);
  EXPECT_EQ(outage.Wait(idle), idle);
  EXPECT_EQ(outage.Observe("claim: no connection"), StoreOutage::Change::kStarted);
  EXPECT_EQ(outage.Wait(idle), milliseconds(100));
  std::vector<core::Duration> waits;
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(outage.Observe("claim: no connection"), StoreOutage::Change::kNone);
    waits.push_back(outage.Wait(idle));
  }
  EXPECT_EQ(waits, (std::vector<core::Duration>{
                       milliseconds(200), milliseconds(400), milliseconds(800), milliseconds(1600),
                       milliseconds(3200), seconds(5), seconds(5), seconds(5)}));
  EXPECT_EQ(outage.Wait(seconds(30)), seconds(30)) << "never shorter than the usual wait";
  EXPECT_EQ(outage.Observe(""), StoreOutage::Change::kEnded);
  EXPECT_EQ(outage.failures(), 9U);
  EXPECT_EQ(outage.Wait(idle), idle);
  EXPECT_EQ(outage.Observe(""), StoreOutage::Change::kNone);
}

}  // namespace
}  // namespace quell::app
