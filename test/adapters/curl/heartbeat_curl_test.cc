// The heartbeat over the real libcurl client to a loopback Healthchecks-like receiver.
#include <gtest/gtest.h>

#include <chrono>
#include <set>

#include "healthchecks_receiver.h"
#include "quell/adapters/curl/curl_http_client.h"
#include "quell/adapters/system/system_clock.h"
#include "quell/app/heartbeat.h"

namespace quell {
namespace {

using std::chrono::milliseconds;

app::CycleReport Cycle(bool ok) {
  app::CycleReport report;
  app::ConditionOutcome& c = report.conditions.emplace_back();
  c.condition = "agent-errors";
  c.source = "infrai";
  c.applied = true;
  if (!ok) {
    c.source_ok = false;
    c.source_error = "listing page 3: 503 from https://infrai.example/v1/groups?api_key=sekrit42";
  }
  return report;
}

app::HeartbeatOptions Options(const std::string& url) {
  app::HeartbeatOptions options;
  options.url = url;
  options.timeout = milliseconds(2000);
  options.first_backoff = milliseconds(20);
  return options;
}

TEST(HeartbeatCurlTest, PingsArriveInOrderWithOneRidPerCycle) {
  testing::HealthchecksReceiver receiver;
  curl::CurlHttpClient http;
  system::SystemClock clock;
  app::Heartbeat heartbeat(http, clock, Options(receiver.Url()));
  const std::vector<std::string> rids = {"0d9c5a52-1b8e-4c3a-9f7e-1a2b3c4d5e01",
                                         "0d9c5a52-1b8e-4c3a-9f7e-1a2b3c4d5e02",
                                         "0d9c5a52-1b8e-4c3a-9f7e-1a2b3c4d5e03"};
  const std::vector<bool> healthy = {true, false, true};
  for (size_t i = 0; i < rids.size(); ++i) {
    heartbeat.OnCycleStart(rids[i], clock.Now());
    heartbeat.OnCycleEnd(rids[i], Cycle(healthy[i]), clock.Now());
  }
  heartbeat.WaitIdle();

  const auto pings = receiver.Pings();
  ASSERT_EQ(pings.size(), 6U);
  const std::vector<std::string> kinds = {"start", "success", "start", "fail", "start", "success"};
  std::set<std::string> distinct;
  for (size_t i = 0; i < pings.size(); ++i) {
    EXPECT_EQ(pings[i].kind, kinds[i]) << i;
    EXPECT_EQ(pings[i].rid, rids[i / 2]) << i;
    EXPECT_TRUE(pings[i].accepted);
    distinct.insert(pings[i].rid);
  }
  EXPECT_EQ(distinct.size(), 3U);
  EXPECT_NE(pings[3].body.find("agent-errors: source infrai failed"), std::string::npos)
      << pings[3].body;
  EXPECT_NE(pings[3].body.find("503"), std::string::npos);
  EXPECT_EQ(pings[3].body.find("sekrit42"), std::string::npos) << pings[3].body;
  EXPECT_EQ(heartbeat.Stats().sent, 6U);
}

TEST(HeartbeatCurlTest, ServerErrorIsRetriedWithTheSameRid) {
  testing::HealthchecksReceiver receiver;
  receiver.FailNext(testing::Fault::kStatus500, 2);
  curl::CurlHttpClient http;
  system::SystemClock clock;
  app::Heartbeat heartbeat(http, clock, Options(receiver.Url()));
  heartbeat.OnCycleStart("0d9c5a52-1b8e-4c3a-9f7e-1a2b3c4d5e04", clock.Now());
  heartbeat.WaitIdle();
  const auto pings = receiver.Pings();
  ASSERT_EQ(pings.size(), 3U);
  EXPECT_FALSE(pings[0].accepted);
  EXPECT_FALSE(pings[1].accepted);
  EXPECT_TRUE(pings[2].accepted);
  for (const auto& ping : pings) EXPECT_EQ(ping.rid, "0d9c5a52-1b8e-4c3a-9f7e-1a2b3c4d5e04");
  EXPECT_EQ(heartbeat.Stats().retries, 2U);
  EXPECT_EQ(heartbeat.Stats().sent, 1U);
}

TEST(HeartbeatCurlTest, AHangingReceiverNeverDelaysTheCycleCallbacks) {
  testing::HealthchecksReceiver receiver;
  receiver.FailNext(testing::Fault::kHang, 100);
  curl::CurlHttpClient http;
  system::SystemClock clock;
  app::HeartbeatOptions options = Options(receiver.Url());
  options.timeout = milliseconds(500);
  options.max_attempts = 2;
  app::Heartbeat heartbeat(http, clock, options);
  const app::CycleReport report = Cycle(true);
  auto slowest = std::chrono::steady_clock::duration::zero();
  for (int i = 0; i < 20; ++i) {
    const std::string rid = "0d9c5a52-1b8e-4c3a-9f7e-1a2b3c4d5f" + std::to_string(10 + i);
    const auto t0 = std::chrono::steady_clock::now();
    heartbeat.OnCycleStart(rid, clock.Now());
    heartbeat.OnCycleEnd(rid, report, clock.Now());
    slowest = std::max(slowest, std::chrono::steady_clock::now() - t0);
  }
  // Enqueueing is a lock and a notify; the pings themselves each wait out a 500 ms timeout.
  EXPECT_LT(slowest, milliseconds(20))
      << std::chrono::duration_cast<std::chrono::microseconds>(slowest).count() << " us";
  receiver.ReleaseHung();
}

}  // namespace
}  // namespace quell
