#include "quell/app/ops_probes.h"

#include <gtest/gtest.h>

#include "fake_clock.h"
#include "fake_incident_store.h"

namespace quell::app {
namespace {

class OpsProbesTest : public ::testing::Test {
 protected:
  testing::FakeClock clock_{core::WallTime{}};
  MetricsRegistry registry_;
  RunMetrics metrics_{registry_, clock_};
  StoreHealth writes_;
  testing::FakeIncidentStore store_;
  OpsProbes probes_{store_, writes_, metrics_, registry_};
};

// The daemon's failed writes come first: the store may still answer the probe's read.
TEST_F(OpsProbesTest, ThePingFailsOnTheDaemonsFailedWritesOrAFailedRead) {
  EXPECT_TRUE(probes_.PingStore().ok());
  writes_.OnStoreWrites("poll", core::MakeError(core::ErrorCode::kUnavailable, "disk is full"));
  ASSERT_FALSE(probes_.PingStore().ok());
  EXPECT_EQ(probes_.PingStore().error().message, "poll: disk is full");
  writes_.OnStoreWrites("poll", {});
  store_.FailNextCount(1);
  EXPECT_FALSE(probes_.PingStore().ok()) << "the read failed";
  EXPECT_TRUE(probes_.PingStore().ok());
}

TEST_F(OpsProbesTest, EachScrapeReadsTheStoreGaugesAfresh) {
  EXPECT_NE(probes_.RenderMetrics().find("quell_open_incidents 0\n"), std::string::npos);
  core::Incident open;
  open.key = "a";
  open.status = core::IncidentStatus::kOpen;
  store_.state().incidents["a"] = open;
  EXPECT_NE(probes_.RenderMetrics().find("quell_open_incidents 1\n"), std::string::npos)
      << probes_.RenderMetrics();
}

}  // namespace
}  // namespace quell::app
