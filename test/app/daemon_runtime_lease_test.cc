// Several daemons on one store: two DaemonRuntimes share one lease store and one fake clock,
// driven step by step (KeepLeases and PollDue as their threads would), so who polls when is
// exact.
#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "fake_clock.h"
#include "fake_lease_store.h"
#include "quell/app/daemon_runtime.h"
#include "quell/app/store_health.h"
#include "recording_log.h"

namespace quell::app {
namespace daemon_runtime_lease_test {

using std::chrono::seconds;

constexpr core::WallTime kStart{
    std::chrono::sys_days{std::chrono::year{2026} / std::chrono::December / 4} +
    std::chrono::hours(9)};
const std::string kLease = "poll/infrai-error-groups/1m0s";

// One group on one lease; a poll "commits" by fencing against the shared lease store, as the
// poll's transaction does.
class LeasedPlan : public PollPlan {
 public:
  LeasedPlan(testing::FakeLeaseStore& leases, core::Clock& clock,
             std::vector<core::WallTime>& polls)
      : leases_(leases), clock_(clock), polls_(polls) {}
  std::vector<core::Duration> Intervals() const override { return {seconds(60)}; }
  std::vector<std::string> Leases(size_t /*group*/) const override { return {kLease}; }
  CycleReport RunCycle(size_t /*group*/, DecisionSink& /*sink*/, const HeldLeases* held) override {
    CycleReport report;
    const auto it = held->find(kLease);
    if (it == held->end()) return report;
    if (before_commit) std::exchange(before_commit, nullptr)();
    ConditionOutcome& outcome = report.conditions.emplace_back();
    outcome.condition = "checkout";
    outcome.lease = kLease;
    outcome.token = it->second;
    if (store_down) {
      outcome.apply_error = "database is locked";
      return report;
    }
    const core::Status fenced = leases_.Fence(kLease, it->second, clock_.Now());
    outcome.applied = fenced.ok();
    outcome.fenced = !fenced.ok();
    if (fenced.ok()) polls_.push_back(clock_.Now());
    return report;
  }
  std::function<void()> before_commit;  // a pause between the lease check and the commit
  bool store_down = false;              // the poll's commit fails, as in a store outage

 private:
  testing::FakeLeaseStore& leases_;
  core::Clock& clock_;
  std::vector<core::WallTime>& polls_;
};

class OneConfig : public RuntimeConfigLoader {
 public:
  explicit OneConfig(std::unique_ptr<LeasedPlan> plan) : plan_(std::move(plan)) {}
  core::Result<RuntimeConfig> Load() override {
    RuntimeConfig config;
    config.path = "quell.yaml";
    config.poll = std::move(plan_);
    config.poll_lease = seconds(15);
    return config;
  }

 private:
  std::unique_ptr<LeasedPlan> plan_;
};

struct Instance {
  testing::RecordingLog log;
  RunControl control;
  StoreHealth writes;  // what /readyz reads
  std::vector<core::WallTime> polls;
  LeasedPlan* plan = nullptr;
  std::unique_ptr<DaemonRuntime> runtime;
};

class DaemonRuntimeLeaseTest : public ::testing::Test {
 protected:
  void Start(Instance& instance, const std::string& id) {
    auto plan = std::make_unique<LeasedPlan>(leases_, clock_, instance.polls);
    instance.plan = plan.get();
    RuntimeOptions options{.config_path = "quell.yaml", .seed = 1, .jitter = 0};
    options.leases = &leases_;
    options.instance = InstanceIdentity{.id = id, .host = "h", .pid = 1, .version = "t"};
    auto runtime =
        DaemonRuntime::Create(std::make_unique<OneConfig>(std::move(plan)), clock_, instance.log,
                              instance.control, std::move(options), {&instance.writes});
    ASSERT_TRUE(runtime.ok()) << runtime.error().message;
    instance.runtime = std::move(*runtime);
  }
  // One second of both threads of `instance`: its keeper's turn when due, then its due polls.
  void Step(Instance& instance, core::MonoTime& keeper_due) {
    if (clock_.Monotonic() >= keeper_due) keeper_due = instance.runtime->KeepLeases();
    instance.runtime->PollDue();
  }

  testing::FakeClock clock_{kStart};
  testing::FakeLeaseStore leases_;
  Instance a_;
  Instance b_;
};

TEST_F(DaemonRuntimeLeaseTest, OneInstancePollsAndTheOtherTakesOverOnlyAfterTheLease) {
  Start(a_, "a");
  Start(b_, "b");
  core::MonoTime a_due = clock_.Monotonic();
  core::MonoTime b_due = clock_.Monotonic();
  for (int second = 0; second < 130; ++second) {
    Step(a_, a_due);
    Step(b_, b_due);
    clock_.SleepFor(seconds(1));
  }
  EXPECT_EQ(a_.polls,
            (std::vector<core::WallTime>{kStart, kStart + seconds(60), kStart + seconds(120)}));
  EXPECT_TRUE(b_.polls.empty()) << "one poller per group";
  EXPECT_EQ(b_.runtime->Health().cycles, 0U) << "a standby's turns are no cycles";
  ASSERT_TRUE(b_.runtime->Role().has_value());
  EXPECT_FALSE(b_.runtime->Role()->polling);
  EXPECT_TRUE(a_.runtime->Role()->polling);

  // a dies (no more renewals, no more polls) at 130 s; its lease runs until 15 s after its
  // last renewal, and its last poll was at 120 s: b polls at 180 s, not before.
  const core::WallTime killed = clock_.Now();
  for (int second = 0; second < 80; ++second) {
    Step(b_, b_due);
    clock_.SleepFor(seconds(1));
  }
  ASSERT_FALSE(b_.polls.empty());
  EXPECT_GE(b_.polls[0], kStart + seconds(180)) << "not before polled_at + interval";
  EXPECT_LE(b_.polls[0], killed + seconds(15) + seconds(60)) << "within lease + interval";
  EXPECT_EQ(leases_.Get(kLease).holder, "b");
  EXPECT_EQ(leases_.Get(kLease).token, 2U);
  const auto acquired = b_.log.Named("lease.acquired");
  ASSERT_EQ(acquired.size(), 1U);
  EXPECT_EQ(acquired[0].at("takeover"), "true");
  EXPECT_EQ(acquired[0].at("previous_holder"), "a");
}

TEST_F(DaemonRuntimeLeaseTest, APausedHolderWhoseLeaseWasTakenCommitsNothing) {
  Start(a_, "a");
  Start(b_, "b");
  (void)a_.runtime->KeepLeases();
  (void)b_.runtime->KeepLeases();
  // a checks its lease, then hangs (a GC pause, a SIGSTOP) past its lease: b takes over.
  a_.plan->before_commit = [this] {
    clock_.SleepFor(seconds(30));
    (void)b_.runtime->KeepLeases();
  };
  a_.runtime->PollDue();
  EXPECT_TRUE(a_.polls.empty()) << "the commit was fenced";
  const auto fenced = a_.log.Named("poll.fenced");
  ASSERT_EQ(fenced.size(), 1U);
  EXPECT_EQ(fenced[0].at("lease"), kLease);
  EXPECT_EQ(fenced[0].at("token"), "1");
  EXPECT_EQ(fenced[0].at("condition"), "checkout");
  EXPECT_EQ(leases_.Get(kLease).holder, "b");
  // a's next turn learns it lost the lease.
  (void)a_.runtime->KeepLeases();
  ASSERT_EQ(a_.log.Named("lease.lost").size(), 1U);
  EXPECT_EQ(a_.log.Named("lease.lost")[0].at("holder"), "b");
}

TEST_F(DaemonRuntimeLeaseTest, AStopReleasesTheLeaseForTheStandbysNextTurn) {
  Start(a_, "a");
  Start(b_, "b");
  (void)a_.runtime->KeepLeases();
  (void)b_.runtime->KeepLeases();
  a_.runtime->PollDue();
  a_.runtime->ReleaseLeases();
  EXPECT_EQ(a_.log.Named("lease.released").size(), 1U);
  clock_.SleepFor(seconds(5));
  (void)b_.runtime->KeepLeases();
  EXPECT_EQ(leases_.Get(kLease).holder, "b");
  EXPECT_EQ(b_.log.Named("lease.acquired")[0].at("takeover"), "false");
  b_.runtime->PollDue();
  EXPECT_TRUE(b_.polls.empty()) << "a polled 5 s ago: b waits out the interval";
  clock_.SleepFor(seconds(55));
  (void)b_.runtime->KeepLeases();
  b_.runtime->PollDue();
  EXPECT_EQ(b_.polls.size(), 1U);
}

// The holder's poll failed in an outage; by the time the store answered again the other
// instance had its lease. As a standby it never polls again, so its readiness must come back
// with the store, not with a poll write it will never make.
TEST_F(DaemonRuntimeLeaseTest, AStandbyWhosePollFailedBeforeItStoodByIsReadyOnceTheStoreIs) {
  Start(a_, "a");
  Start(b_, "b");
  (void)a_.runtime->KeepLeases();
  (void)b_.runtime->KeepLeases();
  a_.plan->store_down = true;
  a_.runtime->PollDue();
  ASSERT_FALSE(a_.writes.Status().ok()) << "the failed poll write is seen";
  EXPECT_NE(a_.writes.Status().error().message.find("poll: database is locked"), std::string::npos);
  (void)a_.runtime->KeepLeases();
  EXPECT_FALSE(a_.writes.Status().ok()) << "a holder's keeper turn says nothing of its polls";
  // The outage outlasts a's lease: a cannot renew, b takes over once the store answers.
  leases_.FailNext(2);
  clock_.SleepFor(seconds(30));
  (void)a_.runtime->KeepLeases();
  EXPECT_FALSE(a_.writes.Status().ok()) << "the store still refuses: not ready";
  a_.plan->store_down = false;
  (void)b_.runtime->KeepLeases();
  ASSERT_EQ(leases_.Get(kLease).holder, "b");
  (void)a_.runtime->KeepLeases();
  ASSERT_FALSE(a_.runtime->Role()->polling);
  a_.runtime->PollDue();
  EXPECT_TRUE(a_.polls.empty()) << "a stands by";
  EXPECT_TRUE(a_.writes.Status().ok()) << a_.writes.Status().error().message;
  EXPECT_TRUE(b_.writes.Status().ok());
}

// Run's own threads: the keeper takes the lease before the first cycle and releases it after
// the poll thread stopped.
TEST_F(DaemonRuntimeLeaseTest, RunTakesTheLeaseFirstAndReleasesItAtStop) {
  Start(a_, "a");
  a_.plan->before_commit = [this] { a_.control.RequestStop(); };
  EXPECT_EQ(a_.runtime->Run(), 0);
  EXPECT_EQ(a_.polls.size(), 1U);
  EXPECT_TRUE(leases_.Get(kLease).holder.empty());
  EXPECT_EQ(a_.log.Named("lease.released").size(), 1U);
}

}  // namespace daemon_runtime_lease_test
}  // namespace quell::app
