#include "quell/app/health.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "fake_clock.h"

namespace quell::app {
namespace {

using std::chrono::seconds;

const core::WallTime kStart = *core::ParseRfc3339("2026-12-02T09:00:00Z");
const LivenessPolicy kPolicy{.interval = seconds(60), .grace = seconds(30)};  // limit 150s

TEST(LivenessTest, RecentCycleIsHealthy) {
  OpsResponse r = LivenessVerdict(kStart + seconds(100), kStart, kStart + seconds(250), kPolicy);
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find(R"("status":"ok")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("last_complete_cycle":"2026-12-02T09:01:40Z")"), std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find(R"("age_seconds":150)"), std::string::npos) << r.body;
}

TEST(LivenessTest, CycleOlderThanTwiceIntervalPlusGraceFails) {
  OpsResponse r = LivenessVerdict(kStart + seconds(100), kStart,
                                  kStart + seconds(250) + core::Duration(1), kPolicy);
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find(R"("status":"stale")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("too old"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("limit_seconds":150)"), std::string::npos) << r.body;
}

TEST(LivenessTest, StartingWithoutCycleIsHealthyUntilTheLimit) {
  EXPECT_EQ(LivenessVerdict(std::nullopt, kStart, kStart + seconds(150), kPolicy).status, 200);
  OpsResponse r = LivenessVerdict(std::nullopt, kStart, kStart + seconds(151), kPolicy);
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("no complete cycle since start-up"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("last_complete_cycle":null)"), std::string::npos) << r.body;
}

TEST(ReadinessTest, FollowsTheStorePing) {
  EXPECT_EQ(ReadinessVerdict(core::Status{}).status, 200);
  OpsResponse r =
      ReadinessVerdict(core::MakeError(core::ErrorCode::kUnavailable, "database is \"locked\""));
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, R"({"status":"unready","reason":"store: database is \"locked\""})");
}

TEST(HealthRoutesTest, ServeLivenessReadinessAndMetrics) {
  testing::FakeClock clock(kStart);
  std::optional<core::WallTime> last;
  core::Status ping;
  std::vector<OpsRoute> routes =
      HealthRoutes(HealthSources{.clock = &clock,
                                 .started_at = kStart,
                                 .policy = kPolicy,
                                 .last_complete_cycle = [&] { return last; },
                                 .ping_store = [&] { return ping; },
                                 .render_metrics = [] { return std::string("quell_x 1\n"); }});
  ASSERT_EQ(routes.size(), 3U);
  auto route = [&](const std::string& path) -> const OpsRoute& {
    for (const OpsRoute& r : routes) {
      if (r.pattern == path) return r;
    }
    throw std::runtime_error("no route " + path);
  };
  for (const OpsRoute& r : routes) {
    EXPECT_EQ(r.method, "GET");
    EXPECT_FALSE(r.write);
  }
  // Probes need no secret; metrics follow open_reads.
  EXPECT_TRUE(route("/healthz").is_public);
  EXPECT_TRUE(route("/readyz").is_public);
  EXPECT_FALSE(route("/metrics").is_public);
  clock.SleepFor(seconds(200));
  EXPECT_EQ(route("/healthz").handler({}).status, 503);
  last = clock.Now();
  EXPECT_EQ(route("/healthz").handler({}).status, 200);
  EXPECT_EQ(route("/readyz").handler({}).status, 200);
  ping = core::MakeError(core::ErrorCode::kUnavailable, "down");
  EXPECT_EQ(route("/readyz").handler({}).status, 503);
  OpsResponse m = route("/metrics").handler({});
  EXPECT_EQ(m.content_type, "text/plain; version=0.0.4");
  EXPECT_EQ(m.body, "quell_x 1\n");
}

}  // namespace
}  // namespace quell::app
