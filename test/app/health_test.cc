#include "quell/app/health.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "fake_clock.h"

namespace quell::app {
namespace health_test {

using std::chrono::seconds;

const core::WallTime kStart = *core::ParseRfc3339("2026-12-02T09:00:00Z");
// limit: 2 x 60s + 40s + 30s = 190s
const LivenessPolicy kPolicy{
    .interval = seconds(60), .poll_deadline = seconds(40), .grace = seconds(30)};

TEST(LivenessTest, RecentCommittedCycleIsHealthy) {
  OpsResponse r = LivenessVerdict(kStart + seconds(100), seconds(190), kPolicy);
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find(R"("status":"ok")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("last_committed_cycle":"2026-12-02T09:01:40Z")"), std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find(R"("age_seconds":190)"), std::string::npos) << r.body;
}

// A source that hangs is cut at its poll deadline, and the cycle commits its unknowns after an
// interval's wait at most: the limit leaves room for both, so a slow source never fails it.
TEST(LivenessTest, TheLimitCoversAWaitedIntervalAndASourceHangingToItsDeadline) {
  const core::WallTime committed = kStart + seconds(100);
  const core::Duration until_next_commit = seconds(60) + seconds(6) + seconds(40);
  EXPECT_EQ(LivenessVerdict(committed, until_next_commit, kPolicy).status, 200);
}

TEST(LivenessTest, NoCommitForLongerThanTwiceIntervalPlusDeadlinePlusGraceFails) {
  OpsResponse r = LivenessVerdict(kStart + seconds(100), seconds(190) + core::Duration(1), kPolicy);
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find(R"("status":"stale")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("no cycle has committed for longer than the limit"), std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find(R"("limit_seconds":190)"), std::string::npos) << r.body;
}

TEST(LivenessTest, StartingWithoutCycleIsHealthyUntilTheLimit) {
  EXPECT_EQ(LivenessVerdict(std::nullopt, seconds(190), kPolicy).status, 200);
  OpsResponse r = LivenessVerdict(std::nullopt, seconds(191), kPolicy);
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("no cycle committed since start-up"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("last_committed_cycle":null)"), std::string::npos) << r.body;
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
  std::optional<CommittedCycle> last;
  core::Status ping;
  std::vector<OpsRoute> routes =
      HealthRoutes(HealthSources{.clock = &clock,
                                 .started_at = clock.Monotonic(),
                                 .policy = kPolicy,
                                 .last_committed_cycle = [&] { return last; },
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
  clock.SleepFor(seconds(200));  // past 2 x 60s + 30s: no deadline given
  EXPECT_EQ(route("/healthz").handler({}).status, 503);
  last = CommittedCycle{.at = clock.Now(), .mono = clock.Monotonic()};
  EXPECT_EQ(route("/healthz").handler({}).status, 200);
  EXPECT_EQ(route("/readyz").handler({}).status, 200);
  ping = core::MakeError(core::ErrorCode::kUnavailable, "down");
  EXPECT_EQ(route("/readyz").handler({}).status, 503);
  OpsResponse m = route("/metrics").handler({});
  EXPECT_EQ(m.content_type, "text/plain; version=0.0.4");
  EXPECT_EQ(m.body, "quell_x 1\n");
}

// The age is measured on the monotonic clock: the wall stepping forward a day does not make a
// recent cycle stale, and stepping back does not keep a stuck loop alive.
TEST(HealthRoutesTest, AWallClockStepMovesNoLivenessAge) {
  testing::FakeClock clock(kStart);
  std::optional<CommittedCycle> last = CommittedCycle{.at = clock.Now(), .mono = clock.Monotonic()};
  const std::vector<OpsRoute> routes =
      HealthRoutes(HealthSources{.clock = &clock,
                                 .started_at = clock.Monotonic(),
                                 .policy = kPolicy,
                                 .last_committed_cycle = [&] { return last; },
                                 .ping_store = [] { return core::Status{}; },
                                 .render_metrics = [] { return std::string(); }});
  const OpsRoute& healthz = routes[0];
  ASSERT_EQ(healthz.pattern, "/healthz");
  clock.StepWall(std::chrono::hours(24));
  EXPECT_EQ(healthz.handler({}).status, 200) << healthz.handler({}).body;
  clock.StepWall(-std::chrono::hours(48));
  clock.SleepFor(seconds(191));
  EXPECT_EQ(healthz.handler({}).status, 503) << healthz.handler({}).body;
}

// A standby commits no cycle (other instances poll); it stays healthy while its lease keeper
// reaches the store, so a supervisor does not restart the instance that would take over.
TEST(HealthRoutesTest, AStandbyIsHealthyWhileItsLeaseKeeperReachesTheStore) {
  testing::FakeClock clock(kStart);
  std::optional<PollRole> role = PollRole{.polling = false, .reached_store = clock.Monotonic()};
  const std::vector<OpsRoute> routes =
      HealthRoutes(HealthSources{.clock = &clock,
                                 .started_at = clock.Monotonic(),
                                 .policy = kPolicy,
                                 .last_committed_cycle = [] { return std::nullopt; },
                                 .role = [&] { return role; },
                                 .ping_store = [] { return core::Status{}; },
                                 .render_metrics = [] { return std::string(); }});
  const OpsRoute& healthz = routes[0];
  clock.SleepFor(seconds(1000));  // far past the cycle limit: no cycle ever committed here
  role->reached_store = clock.Monotonic() - seconds(3);
  OpsResponse r = healthz.handler({});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find(R"("role":"standby")"), std::string::npos) << r.body;
  role->reached_store = clock.Monotonic() - seconds(191);
  EXPECT_EQ(healthz.handler({}).status, 503) << healthz.handler({}).body;
  role->reached_store.reset();
  EXPECT_EQ(healthz.handler({}).status, 503) << "never reached, and start-up is long past";
  // Holding a lease, it answers for its cycles as before.
  role = PollRole{.polling = true, .reached_store = clock.Monotonic()};
  r = healthz.handler({});
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_NE(r.body.find(R"("role":"polling")"), std::string::npos) << r.body;
}

}  // namespace health_test
}  // namespace quell::app
