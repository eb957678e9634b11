// The daemon's runtime over fake ports: scripted poll groups and dispatcher, a loader that
// hands out configs, a clock the test moves. Nothing waits on the wall: the step API drives one
// cycle or round at a time, and Run is driven by advancing a ManualClock.
#include "quell/app/daemon_runtime.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "fake_clock.h"
#include "manual_clock.h"
#include "recording_log.h"

namespace quell::app {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

// 2026-12-02T09:00:00Z.
constexpr core::WallTime kStart{
    std::chrono::sys_days{std::chrono::year{2026} / std::chrono::December / 2} +
    std::chrono::hours(9)};

// Counts the cycles of each group; a test waits for a count (a hand-off, not a sleep).
class FakePollPlan : public PollPlan {
 public:
  explicit FakePollPlan(std::vector<core::Duration> intervals) : intervals_(std::move(intervals)) {}
  std::vector<core::Duration> Intervals() const override { return intervals_; }
  CycleReport RunCycle(size_t group, DecisionSink& /*sink*/, const HeldLeases* /*held*/) override {
    CycleReport report;
    ConditionOutcome outcome;
    outcome.condition = "group" + std::to_string(group);
    outcome.applied = applied;
    report.conditions.push_back(outcome);
    {
      const std::lock_guard lock(mu_);
      cycles_.push_back(group);
    }
    cv_.notify_all();
    return report;
  }
  std::vector<size_t> cycles() {
    const std::lock_guard lock(mu_);
    return cycles_;
  }
  void AwaitCycles(size_t n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return cycles_.size() >= n; });
  }
  bool applied = true;

 private:
  std::vector<core::Duration> intervals_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<size_t> cycles_;
};

class FakeDispatchPlan : public DispatchPlan {
 public:
  bool enabled() const override { return true; }
  DispatchReport RunOnce() override {
    DispatchReport report;
    {
      const std::lock_guard lock(mu_);
      ++rounds_;
      if (!store_errors_.empty()) {
        report.store_error = store_errors_.front();
        store_errors_.pop_front();
        if (!report.store_error.empty()) report.errors.push_back(report.store_error);
      }
    }
    cv_.notify_all();
    return report;
  }
  core::Duration idle_interval() const override { return milliseconds(50); }
  void FailNext(std::deque<std::string> errors) { store_errors_ = std::move(errors); }
  size_t rounds() {
    const std::lock_guard lock(mu_);
    return rounds_;
  }
  void AwaitRounds(size_t n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return rounds_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  size_t rounds_ = 0;
  std::deque<std::string> store_errors_;
};

// Hands out the configs the test queued, one per Load, or an error when told to.
class FakeLoader : public RuntimeConfigLoader {
 public:
  struct Plans {
    FakePollPlan* poll;
    FakeDispatchPlan* dispatch;
  };
  // Queues a config polling every `intervals`; returns its plans (owned by the runtime once
  // loaded) for the test to watch.
  Plans Queue(std::vector<core::Duration> intervals) {
    RuntimeConfig config;
    config.path = "quell.yaml";
    config.channels = 1;
    config.warnings = {"unsigned webhook"};
    auto poll = std::make_unique<FakePollPlan>(std::move(intervals));
    auto dispatch = std::make_unique<FakeDispatchPlan>();
    const Plans plans{poll.get(), dispatch.get()};
    config.poll = std::move(poll);
    config.dispatch = std::move(dispatch);
    const std::lock_guard lock(mu_);
    queued_.push_back(std::move(config));
    return plans;
  }
  void FailNext(std::string message) {
    const std::lock_guard lock(mu_);
    error_ = std::move(message);
  }
  core::Result<RuntimeConfig> Load() override {
    const std::lock_guard lock(mu_);
    if (!error_.empty()) {
      return core::MakeError(core::ErrorCode::kInvalidArgument, std::exchange(error_, ""));
    }
    RuntimeConfig next = std::move(queued_.front());
    queued_.pop_front();
    return next;
  }

 private:
  std::mutex mu_;
  std::deque<RuntimeConfig> queued_;
  std::string error_;
};

using testing::RecordingLog;

// Remembers the wall time each cycle end was reported at.
class EndListener : public RunListener {
 public:
  void OnCycleStart(const std::string&, core::WallTime) override {}
  void OnCycleEnd(const std::string&, const CycleReport&, core::WallTime at) override {
    const std::lock_guard lock(mu_);
    ends.push_back(at);
  }
  void OnDispatch(const DispatchReport&, core::WallTime) override {}
  std::mutex mu_;
  std::vector<core::WallTime> ends;
};

class DaemonRuntimeTest : public ::testing::Test {
 protected:
  std::unique_ptr<DaemonRuntime> Create(core::Clock& clock) {
    auto loader = std::make_unique<FakeLoader>();
    loader_ = loader.get();
    first_ = loader_->Queue({seconds(10), seconds(60)});
    auto runtime = DaemonRuntime::Create(
        std::move(loader), clock, log_, control_,
        RuntimeOptions{.config_path = "quell.yaml", .seed = 7, .jitter = 0}, {&listener_});
    EXPECT_TRUE(runtime.ok()) << runtime.error().message;
    return runtime.ok() ? std::move(*runtime) : nullptr;
  }

  FakeLoader* loader_ = nullptr;
  FakeLoader::Plans first_{};
  RecordingLog log_;
  RunControl control_;
  EndListener listener_;
};

TEST_F(DaemonRuntimeTest, EachGroupPollsOnItsOwnIntervalAsTheClockAdvances) {
  testing::FakeClock clock(kStart);
  auto runtime = Create(clock);
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->Health().smallest_interval, seconds(10));
  runtime->PollDue();
  EXPECT_EQ(first_.poll->cycles(), (std::vector<size_t>{0, 1})) << "both due at start";
  EXPECT_EQ(runtime->UntilNextDue(), seconds(10));
  for (int i = 0; i < 6; ++i) {
    clock.SleepFor(seconds(10));
    runtime->PollDue();
  }
  EXPECT_EQ(first_.poll->cycles(), (std::vector<size_t>{0, 1, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(runtime->Health().cycles, 9U);
  EXPECT_EQ(runtime->Health().last_complete_cycle, kStart + seconds(60));
  EXPECT_EQ(log_.Named("config.warning").size(), 1U);
  EXPECT_EQ(log_.Named("poll.cycle_end").size(), 9U);
}

// Cadences run on the monotonic clock: the wall jumping an hour ahead starts no cycle early,
// and jumping back delays none; the cycle ends are still reported in wall time.
TEST_F(DaemonRuntimeTest, AWallClockStepMovesNoPollCadence) {
  testing::FakeClock clock(kStart);
  auto runtime = Create(clock);
  ASSERT_NE(runtime, nullptr);
  runtime->PollDue();
  ASSERT_EQ(first_.poll->cycles().size(), 2U);
  clock.StepWall(hours(1));
  runtime->PollDue();
  EXPECT_EQ(first_.poll->cycles().size(), 2U) << "ten monotonic seconds have not passed";
  EXPECT_EQ(runtime->UntilNextDue(), seconds(10));
  clock.StepWall(-hours(3));
  clock.SleepFor(seconds(10));
  runtime->PollDue();
  EXPECT_EQ(first_.poll->cycles().size(), 3U) << "ten monotonic seconds have passed";
  EXPECT_EQ(listener_.ends.back(), kStart - hours(2) + seconds(10)) << "reported in wall time";
}

TEST_F(DaemonRuntimeTest, AStoreOutageBacksOffAndIsLoggedOnceWhenItStartsAndEnds) {
  testing::FakeClock clock(kStart);
  auto runtime = Create(clock);
  ASSERT_NE(runtime, nullptr);
  first_.dispatch->FailNext({"claim: database is locked", "claim: database is locked", ""});
  EXPECT_EQ(runtime->DispatchWaitAfter(runtime->DispatchRound()), milliseconds(100));
  EXPECT_EQ(runtime->DispatchWaitAfter(runtime->DispatchRound()), milliseconds(200));
  EXPECT_EQ(runtime->DispatchWaitAfter(runtime->DispatchRound()), milliseconds(50)) << "idle";
  EXPECT_EQ(log_.Named("dispatch.store_unavailable").size(), 1U);
  ASSERT_EQ(log_.Named("dispatch.store_recovered").size(), 1U);
  EXPECT_EQ(log_.Named("dispatch.store_recovered")[0]["failed_rounds"], "2");
  EXPECT_TRUE(log_.Named("dispatch.error").empty()) << "the outage is said once, not per round";
}

TEST_F(DaemonRuntimeTest, ARejectedReloadKeepsTheRunningConfigAndAValidOneSwitchesBothSides) {
  testing::FakeClock clock(kStart);
  auto runtime = Create(clock);
  ASSERT_NE(runtime, nullptr);
  runtime->PollDue();
  loader_->FailNext("quell.yaml:4:7: conditions[0].interval: expected a duration");
  const core::Status rejected = runtime->Reload();
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(runtime->Health().failed_reloads, 1U);
  ASSERT_EQ(log_.Named("config.reload_rejected").size(), 1U);
  EXPECT_EQ(log_.Named("config.reload_rejected")[0]["error"],
            "quell.yaml:4:7: conditions[0].interval: expected a duration");
  clock.SleepFor(seconds(10));
  runtime->PollDue();
  runtime->DispatchRound();
  EXPECT_EQ(first_.poll->cycles().size(), 3U) << "the old config still polls";
  EXPECT_EQ(first_.dispatch->rounds(), 1U) << "and dispatches";

  const FakeLoader::Plans second = loader_->Queue({seconds(30)});
  ASSERT_TRUE(runtime->Reload().ok());
  EXPECT_EQ(runtime->Health().reloads, 1U);
  EXPECT_EQ(runtime->Health().smallest_interval, seconds(30));
  runtime->PollDue();
  runtime->DispatchRound();
  EXPECT_EQ(second.poll->cycles().size(), 1U) << "the new config's groups are due at once";
  EXPECT_EQ(second.dispatch->rounds(), 1U);
  EXPECT_EQ(log_.Named("config.reloaded").size(), 1U);
}

// Run on its threads, driven by the clock: a cycle at start, the next only once the clock has
// advanced its interval; a reload request switches configs; a stop request ends Run.
TEST_F(DaemonRuntimeTest, RunPollsDispatchesReloadsAndStopsOnEvents) {
  testing::ManualClock clock(kStart);
  auto runtime = Create(clock);
  ASSERT_NE(runtime, nullptr);
  int exit_code = -1;
  std::thread run([&] { exit_code = runtime->Run(); });

  first_.poll->AwaitCycles(2);  // both groups at start
  first_.dispatch->AwaitRounds(1);
  clock.AwaitWaiters(2);       // the poll and dispatch threads both wait for time to pass
  clock.Advance(seconds(10));  // the 10 s group is due again
  first_.poll->AwaitCycles(3);

  const std::vector<size_t> first_cycles = first_.poll->cycles();  // the reload frees the plan
  const FakeLoader::Plans second = loader_->Queue({seconds(30)});
  control_.RequestReload();     // SIGHUP, as the signal thread delivers it
  second.poll->AwaitCycles(1);  // the new config polls at once, after the dispatcher switched
  second.dispatch->AwaitRounds(1);

  control_.RequestStop();  // SIGTERM
  run.join();
  EXPECT_EQ(exit_code, 0);
  EXPECT_EQ(first_cycles, (std::vector<size_t>{0, 1, 0})) << "no cycle without time";
  EXPECT_EQ(second.poll->cycles().size(), 1U);
  const DaemonHealth health = runtime->Health();
  EXPECT_EQ(health.cycles, 4U);
  EXPECT_EQ(health.reloads, 1U);
  EXPECT_EQ(log_.Named("run.stopped").size(), 1U);
}

TEST_F(DaemonRuntimeTest, AStopRequestedBeforeRunEndsItWithoutACycle) {
  testing::ManualClock clock(kStart);
  auto runtime = Create(clock);
  ASSERT_NE(runtime, nullptr);
  control_.RequestStop();
  EXPECT_EQ(runtime->Run(), 0);
  EXPECT_TRUE(first_.poll->cycles().empty());
}

}  // namespace
}  // namespace quell::app
