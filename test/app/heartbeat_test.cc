#include "quell/app/heartbeat.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "fake_clock.h"
#include "fake_http_client.h"

namespace quell::app {
namespace heartbeat_test {

using std::chrono::seconds;

const core::WallTime kT0 = core::WallTime{} + seconds(1'800'000'000);
constexpr const char* kUrl = "https://hc.example/ping/abc";

CycleReport HealthyCycle() {
  CycleReport report;
  report.at = kT0;
  ConditionOutcome& c = report.conditions.emplace_back();
  c.condition = "agent-errors";
  c.source = "infrai";
  c.applied = true;
  return report;
}

CycleReport FailedCycle(std::string source_error) {
  CycleReport report = HealthyCycle();
  report.conditions[0].source_ok = false;
  report.conditions[0].source_error = std::move(source_error);
  ConditionOutcome& c = report.conditions.emplace_back();
  c.condition = "latency";
  c.source = "prom";
  c.applied = false;
  c.apply_error = "database is locked";
  return report;
}

HeartbeatOptions Options() {
  HeartbeatOptions options;
  options.url = kUrl;
  options.timeout = seconds(3);
  return options;
}

// Holds every Send until Release(), so a test can fill the queue behind a ping in flight.
class GatedHttpClient : public core::HttpClient {
 public:
  core::Result<core::HttpResponse> Send(const core::HttpRequest& request) override {
    std::unique_lock<std::mutex> lock(mutex_);
    urls_.push_back(request.url);
    arrived_.notify_all();
    open_.wait(lock, [this] { return released_; });
    return core::HttpResponse{200, {}, "OK"};
  }
  void WaitForFirst() {
    std::unique_lock<std::mutex> lock(mutex_);
    arrived_.wait(lock, [this] { return !urls_.empty(); });
  }
  void Release() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      released_ = true;
    }
    open_.notify_all();
  }
  std::vector<std::string> urls() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return urls_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_, open_;
  bool released_ = false;
  std::vector<std::string> urls_;
};

TEST(HeartbeatTest, PingsStartThenSuccessWithTheCyclesRid) {
  testing::FakeHttpClient http;
  http.Respond(200, {}, "OK");
  testing::FakeClock clock(kT0);
  Heartbeat heartbeat(http, clock, Options());
  heartbeat.OnCycleStart("rid-1", kT0);
  heartbeat.OnCycleEnd("rid-1", HealthyCycle(), kT0);
  heartbeat.WaitIdle();
  const auto requests = http.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].url, "https://hc.example/ping/abc/start?rid=rid-1");
  EXPECT_EQ(requests[1].method, "GET");
  EXPECT_EQ(requests[1].url, "https://hc.example/ping/abc?rid=rid-1");
  EXPECT_EQ(requests[1].total_timeout, seconds(3));
  EXPECT_EQ(heartbeat.Stats().sent, 2U);
}

TEST(HeartbeatTest, FailedCyclePostsFailWithARedactedReason) {
  testing::FakeHttpClient http;
  http.Respond(200, {}, "OK");
  testing::FakeClock clock(kT0);
  Heartbeat heartbeat(http, clock, Options());
  heartbeat.OnCycleEnd(
      "rid-2",
      FailedCycle("GET https://user:hunter2@api.infrai.example/v1/groups?api_key=ifr_9f8e7d6c5b4a"
                  " failed: 503 Service Unavailable"),
      kT0);
  heartbeat.WaitIdle();
  const auto requests = http.requests();
  ASSERT_EQ(requests.size(), 1U);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].url, "https://hc.example/ping/abc/fail?rid=rid-2");
  const std::string& body = requests[0].body;
  EXPECT_NE(body.find("agent-errors: source infrai failed:"), std::string::npos) << body;
  EXPECT_NE(body.find("https://api.infrai.example/v1/groups?api_key=[redacted]"), std::string::npos)
      << body;
  EXPECT_NE(body.find("503 Service Unavailable"), std::string::npos) << body;
  EXPECT_NE(body.find("latency: not committed: database is locked"), std::string::npos) << body;
  EXPECT_EQ(body.find("ifr_9f8e7d6c5b4a"), std::string::npos) << body;
  EXPECT_EQ(body.find("hunter2"), std::string::npos) << body;
  EXPECT_EQ(core::FindHeader(requests[0].headers, "content-type"), "text/plain; charset=utf-8");
}

TEST(HeartbeatTest, ReasonIsCutToTheLimitOnACharacterBoundary) {
  CycleReport report = FailedCycle(std::string(3000, 'x') + "\xc3\xa9");
  const std::string reason = HeartbeatFailureReason(report, 1024);
  EXPECT_LE(reason.size(), 1024U);
  EXPECT_GT(reason.size(), 1000U);
  report.conditions[0].source_error = std::string(1015, 'y') + "\xc3\xa9\xc3\xa9";
  const std::string cut = HeartbeatFailureReason(report, 1024);
  // The cut never leaves half a two-byte character.
  EXPECT_NE(static_cast<unsigned char>(cut.back()), 0xC3U);
}

TEST(HeartbeatTest, RetriesServerErrorsWithDoublingBackoffOnTheClock) {
  testing::FakeHttpClient http;
  http.Respond(500).Fail(core::ErrorCode::kTimeout, "GET x: timed out").Respond(200, {}, "OK");
  testing::FakeClock clock(kT0);
  Heartbeat heartbeat(http, clock, Options());
  heartbeat.OnCycleStart("rid-3", kT0);
  heartbeat.WaitIdle();
  EXPECT_EQ(http.requests().size(), 3U);
  EXPECT_EQ(clock.sleeps(), (std::vector<core::Duration>{seconds(1), seconds(2)}));
  const HeartbeatStats stats = heartbeat.Stats();
  EXPECT_EQ(stats.sent, 1U);
  EXPECT_EQ(stats.retries, 2U);
  EXPECT_EQ(stats.failed, 0U);
}

TEST(HeartbeatTest, GivesUpAfterMaxAttemptsAndSendsTheNextPing) {
  testing::FakeHttpClient http;
  http.Respond(503).Respond(503).Respond(200, {}, "OK");
  testing::FakeClock clock(kT0);
  HeartbeatOptions options = Options();
  options.max_attempts = 2;
  Heartbeat heartbeat(http, clock, options);
  heartbeat.OnCycleStart("rid-4", kT0);
  heartbeat.OnCycleEnd("rid-4", HealthyCycle(), kT0);
  heartbeat.WaitIdle();
  const auto requests = http.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_EQ(requests[2].url, "https://hc.example/ping/abc?rid=rid-4");
  EXPECT_EQ(heartbeat.Stats().failed, 1U);
  EXPECT_EQ(heartbeat.Stats().sent, 1U);
}

TEST(HeartbeatTest, ClientErrorIsNotRetried) {
  testing::FakeHttpClient http;
  http.Respond(404, {}, "not found").Respond(200, {}, "OK");
  testing::FakeClock clock(kT0);
  Heartbeat heartbeat(http, clock, Options());
  heartbeat.OnCycleStart("rid-5", kT0);
  heartbeat.WaitIdle();
  EXPECT_EQ(http.requests().size(), 1U);
  EXPECT_TRUE(clock.sleeps().empty());
  EXPECT_EQ(heartbeat.Stats().failed, 1U);
}

TEST(HeartbeatTest, FullQueueDropsTheOldestWithoutBlockingTheCaller) {
  GatedHttpClient http;
  testing::FakeClock clock(kT0);
  HeartbeatOptions options = Options();
  options.queue_capacity = 2;
  Heartbeat heartbeat(http, clock, options);
  heartbeat.OnCycleStart("in-flight", kT0);
  http.WaitForFirst();  // the worker is now stuck in Send
  for (int i = 0; i < 4; ++i) heartbeat.OnCycleStart("queued-" + std::to_string(i), kT0);
  EXPECT_EQ(heartbeat.Stats().dropped, 2U);
  http.Release();
  heartbeat.WaitIdle();
  EXPECT_EQ(http.urls(), (std::vector<std::string>{
                             "https://hc.example/ping/abc/start?rid=in-flight",
                             "https://hc.example/ping/abc/start?rid=queued-2",
                             "https://hc.example/ping/abc/start?rid=queued-3",
                         }));
}

TEST(HeartbeatTest, KeepsAQueryStringOfTheBaseUrl) {
  testing::FakeHttpClient http;
  http.Respond(200, {}, "OK");
  testing::FakeClock clock(kT0);
  HeartbeatOptions options = Options();
  options.url = "https://hc.example/ping/abc/?create=1";
  Heartbeat heartbeat(http, clock, options);
  heartbeat.OnCycleStart("r", kT0);
  heartbeat.WaitIdle();
  ASSERT_EQ(http.requests().size(), 1U);
  EXPECT_EQ(http.requests()[0].url, "https://hc.example/ping/abc/start?create=1&rid=r");
}

}  // namespace heartbeat_test
}  // namespace quell::app
