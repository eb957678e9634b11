#include "quell/app/daemon_runtime.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "quell/app/dispatch_loop.h"
#include "quell/app/run_id.h"
#include "quell/core/engine/decision.h"

namespace quell::app {
namespace {

using core::LogLevel;

// How often a standby's poll thread looks whether its keeper has taken a lease.
constexpr core::Duration kStandbyRecheck = std::chrono::milliseconds(100);

// Logs the decisions that change what people see (opens, renotifies, resolves) at info and
// the rest at debug, each with its incident key and the cycle's run id as the poll id.
class LoggingSink : public DecisionSink {
 public:
  LoggingSink(core::EventLog& log, const std::string& run_id) : log_(log), run_id_(run_id) {}
  void OnDecision(const core::Observation& observation, const core::Decision& decision) override {
    const LogLevel level = decision.transition ? LogLevel::kInfo : LogLevel::kDebug;
    log_.Log(
        level, "poll.decision",
        {{"poll_id", run_id_},
         {"incident_key", observation.key},
         {"decision", core::DecisionName(decision.kind)},
         {"reason", core::ReasonName(decision.reason)},
         {"health", core::HealthName(observation.health)},
         {"transition", decision.transition ? core::TransitionName(*decision.transition) : ""}});
  }
  void Reset() override {}

 private:
  core::EventLog& log_;
  const std::string& run_id_;
};

void LogCondition(core::EventLog& log, const std::string& run_id, const ConditionOutcome& c) {
  const auto& by = c.summary.poll.by_decision;
  const auto n = [&by](core::DecisionKind kind) { return by[static_cast<size_t>(kind)]; };
  const bool bad = !c.source_ok || !c.applied;
  log.Log(bad ? LogLevel::kWarn : LogLevel::kInfo, "poll.condition",
          {{"poll_id", run_id},
           {"condition", c.condition},
           {"source", c.source},
           {"observations", c.observations},
           {"notify", n(core::DecisionKind::kNotify)},
           {"resolve", n(core::DecisionKind::kResolve)},
           {"outbox_rows", c.summary.poll.outbox_rows},
           {"source_error", c.source_error},
           {"apply_error", c.apply_error}});
  if (c.no_series_warning) {
    log.Log(LogLevel::kWarn, "poll.no_series",
            {{"poll_id", run_id},
             {"condition", c.condition},
             {"query", c.query},
             {"empty_polls", std::to_string(*c.empty_polls)},
             {"hint",
              "the query answered no series the condition keeps, so it observes nothing; "
              "check the query and its labels with `quell schema check`"}});
  }
}

// A source's own incident, fed by this cycle's poll of it (core/conditions/source_health).
void LogSourceHealth(core::EventLog& log, const std::string& run_id, const SourceHealthOutcome& s) {
  const auto& by = s.summary.poll.by_decision;
  const auto n = [&by](core::DecisionKind kind) { return by[static_cast<size_t>(kind)]; };
  log.Log(!s.applied && !s.fenced ? LogLevel::kWarn : LogLevel::kInfo, "poll.source_health",
          {{"poll_id", run_id},
           {"source", s.source},
           {"poll_ok", s.poll_ok},
           {"notify", n(core::DecisionKind::kNotify)},
           {"resolve", n(core::DecisionKind::kResolve)},
           {"outbox_rows", s.summary.poll.outbox_rows},
           {"fenced", s.fenced},
           {"apply_error", s.apply_error}});
}

}  // namespace

DaemonRuntime::DaemonRuntime(std::unique_ptr<RuntimeConfigLoader> loader, core::Clock& clock,
                             core::EventLog& log, RunControl& control, RuntimeOptions options,
                             std::vector<RunListener*> listeners)
    : loader_(std::move(loader)),
      clock_(clock),
      log_(log),
      control_(control),
      options_(std::move(options)),
      listeners_(std::move(listeners)),
      run_id_state_(options_.seed) {}

DaemonRuntime::~DaemonRuntime() = default;

core::Result<std::unique_ptr<DaemonRuntime>> DaemonRuntime::Create(
    std::unique_ptr<RuntimeConfigLoader> loader, core::Clock& clock, core::EventLog& log,
    RunControl& control, RuntimeOptions options, std::vector<RunListener*> listeners) {
  std::unique_ptr<DaemonRuntime> runtime(new DaemonRuntime(
      std::move(loader), clock, log, control, std::move(options), std::move(listeners)));
  auto generation = runtime->Prepare();
  if (!generation) return generation.error();
  runtime->poll_ = std::move(generation->poll);
  runtime->dispatch_ = std::move(generation->dispatch);
  if (runtime->options_.leases != nullptr) {
    InstanceIdentity self = runtime->options_.instance;
    if (self.started_at == core::WallTime{}) self.started_at = clock.Now();
    runtime->keeper_ =
        std::make_unique<LeaseKeeper>(*runtime->options_.leases, log, std::move(self),
                                      runtime->poll_.leases, runtime->listeners_);
  }
  runtime->health_.smallest_interval = runtime->poll_.scheduler->SmallestInterval();
  return runtime;
}

core::Result<DaemonRuntime::Generation> DaemonRuntime::Prepare() {
  auto loaded = loader_->Load();
  if (!loaded) return loaded.error();
  for (const std::string& warning : loaded->warnings) {
    log_.Log(LogLevel::kWarn, "config.warning", {{"config", loaded->path}, {"warning", warning}});
  }
  Generation generation;
  generation.poll.plan = std::move(loaded->poll);
  generation.poll.scheduler = std::make_unique<Scheduler>(
      generation.poll.plan->Intervals(), clock_.Monotonic(),
      SchedulerOptions{.jitter = options_.jitter, .seed = options_.seed ^ 0x5eedULL});
  generation.poll.channels = loaded->channels;
  generation.poll.leases.length = loaded->poll_lease;
  const std::vector<core::Duration> intervals = generation.poll.plan->Intervals();
  for (size_t group = 0; group < intervals.size(); ++group) {
    for (std::string& name : generation.poll.plan->Leases(group)) {
      generation.poll.leases.leases.push_back(PollLease{std::move(name), intervals[group]});
    }
  }
  generation.dispatch = std::move(loaded->dispatch);
  generation.restart_needed = std::move(loaded->restart_needed);
  return generation;
}

int DaemonRuntime::Run() {
  log_.Log(LogLevel::kInfo, "run.start",
           {{"config", options_.config_path},
            {"groups", poll_.scheduler->size()},
            {"smallest_interval", core::FormatDuration(health_.smallest_interval)},
            {"dispatch", dispatch_ && dispatch_->enabled() ? "on" : "off"}});
  std::thread dispatcher;
  if (dispatch_) {
    dispatch_thread_ = true;
    dispatcher = std::thread([this] { DispatchLoop(); });
  }
  std::thread keeper;
  if (keeper_) {
    // One turn before the first cycle, so a lone instance polls at once.
    (void)KeepLeases();
    keeper = std::thread([this] { LeaseLoop(); });
  }
  while (!control_.stop_requested()) {
    if (control_.TakeReload()) (void)Reload();
    PollDue();
    if (control_.stop_requested()) break;
    const core::Duration wait = UntilNextDue();
    if (wait > core::Duration::zero()) control_.WaitFor(clock_, wait, /*on_reload=*/true);
  }
  log_.Log(LogLevel::kInfo, "run.stopping", {{"reason", "signal"}});
  if (dispatcher.joinable()) dispatcher.join();
  if (keeper.joinable()) keeper.join();
  // The poll thread has stopped: a standby may take over at its next turn.
  ReleaseLeases();
  log_.Log(LogLevel::kInfo, "run.stopped", {});
  return 0;
}

void DaemonRuntime::PollDue() {
  for (const size_t group : poll_.scheduler->Due(clock_.Monotonic())) {
    if (control_.stop_requested()) break;
    RunGroup(group);
  }
}

core::Duration DaemonRuntime::UntilNextDue() {
  return poll_.scheduler->NextDue() - clock_.Monotonic();
}

core::MonoTime DaemonRuntime::KeepLeases() {
  if (!keeper_) return clock_.Monotonic() + std::chrono::hours(24);
  const core::WallTime now = clock_.Now();
  return keeper_->Tick(now, clock_.Monotonic());
}

void DaemonRuntime::ReleaseLeases() {
  if (keeper_) keeper_->ReleaseAll(clock_.Now());
}

void DaemonRuntime::LeaseLoop() {
  core::MonoTime due = keeper_->Tick(clock_.Now(), clock_.Monotonic());
  while (!control_.stop_requested()) {
    const core::Duration wait = due - clock_.Monotonic();
    if (wait > core::Duration::zero()) {
      control_.WaitFor(clock_, wait, /*on_reload=*/false);
      continue;  // a Wake() (new outbox rows) is not this thread's turn
    }
    due = keeper_->Tick(clock_.Now(), clock_.Monotonic());
  }
}

std::optional<PollRole> DaemonRuntime::Role() const {
  if (!keeper_) return std::nullopt;
  const KeeperState state = keeper_->State(clock_.Monotonic());
  return PollRole{.polling = state.holds_any,
                  .reached_store = state.reached_store,
                  .polling_since = state.polling_since};
}

void DaemonRuntime::ReportFenced(const std::string& run_id, const CycleReport& report) {
  for (const ConditionOutcome& c : report.conditions) {
    if (!c.fenced) continue;
    log_.Log(
        LogLevel::kWarn, "poll.fenced",
        {{"poll_id", run_id}, {"condition", c.condition}, {"lease", c.lease}, {"token", c.token}});
    for (RunListener* listener : listeners_) listener->OnPollFenced(c.condition, c.lease, c.token);
  }
}

void DaemonRuntime::RunGroup(size_t group) {
  const core::MonoTime started_mono = clock_.Monotonic();
  std::optional<HeldLeases> held;
  const std::vector<std::string> leases = poll_.plan->Leases(group);
  if (keeper_ && !leases.empty()) {
    held = keeper_->Held(started_mono);
    const bool any = std::any_of(leases.begin(), leases.end(),
                                 [&](const std::string& name) { return held->contains(name); });
    if (!any) {
      // Another instance polls this group (or a takeover waits for its last poll + interval):
      // a standby's turn, not a failed cycle. Looked at again soon (Held is a look at memory,
      // no store call), so a lease the keeper takes is polled within 100 ms, not a keeper
      // period later: failover stays within lease + one keeper period.
      poll_.scheduler->Defer(group, started_mono + std::min(keeper_->Period(), kStandbyRecheck));
      return;
    }
  }
  const std::string run_id = NewRunId(run_id_state_);
  const core::WallTime started = clock_.Now();
  const std::string interval = core::FormatDuration(poll_.scheduler->interval(group));
  for (RunListener* listener : listeners_) listener->OnCycleStart(run_id, started);
  log_.Log(LogLevel::kInfo, "poll.cycle_start", {{"poll_id", run_id}, {"interval", interval}});

  LoggingSink sink(log_, run_id);
  const CycleReport report = poll_.plan->RunCycle(group, sink, held ? &*held : nullptr);
  const core::WallTime finished = clock_.Now();
  const core::MonoTime finished_mono = clock_.Monotonic();
  for (const ConditionOutcome& c : report.conditions) LogCondition(log_, run_id, c);
  for (const SourceHealthOutcome& s : report.source_health) LogSourceHealth(log_, run_id, s);
  ReportFenced(run_id, report);
  poll_.scheduler->Completed(group, started_mono, finished_mono);
  // A condition that did not commit failed in the store (its source's failures still commit
  // as unknown observations); a fenced one did not: another instance polls it now.
  core::Status writes;
  for (const ConditionOutcome& c : report.conditions) {
    if (!c.applied && !c.fenced) {
      writes = core::MakeError(core::ErrorCode::kUnavailable, c.apply_error);
      break;
    }
  }
  for (const SourceHealthOutcome& s : report.source_health) {
    if (writes && !s.applied && !s.fenced) {
      writes = core::MakeError(core::ErrorCode::kUnavailable, s.apply_error);
    }
  }
  for (RunListener* listener : listeners_) listener->OnStoreWrites("poll", writes);
  {
    const std::lock_guard lock(mu_);
    ++health_.cycles;
    health_.last_cycle_end = finished;
    if (report.ok()) health_.last_complete_cycle = finished;
  }
  log_.Log(report.ok() ? LogLevel::kInfo : LogLevel::kWarn, "poll.cycle_end",
           {{"poll_id", run_id},
            {"ok", report.ok()},
            {"conditions", report.conditions.size()},
            {"duration", core::FormatDuration(finished_mono - started_mono)}});
  for (RunListener* listener : listeners_) listener->OnCycleEnd(run_id, report, finished);
  // New outbox rows: the dispatcher need not wait out its idle interval.
  control_.Wake();
}

core::Status DaemonRuntime::Reload() {
  auto next = Prepare();
  if (!next) {
    {
      const std::lock_guard lock(mu_);
      ++health_.failed_reloads;
    }
    std::string why = next.error().message;
    std::replace(why.begin(), why.end(), '\n', ';');
    log_.Log(LogLevel::kWarn, "config.reload_rejected",
             {{"config", options_.config_path},
              {"error", why},
              {"kept", "the running config: every condition and channel as before"}});
    return next.error();
  }
  // The dispatcher first: once it has the new channels, the poller may route to them.
  if (dispatch_thread_) {
    next_dispatch_.Offer(std::move(next->dispatch));
    control_.Wake();
    if (!next_dispatch_.AwaitTaken()) {
      return core::MakeError(core::ErrorCode::kUnavailable, "stopping: the reload was not applied");
    }
  } else {
    dispatch_ = std::move(next->dispatch);
  }
  poll_ = std::move(next->poll);
  if (keeper_) keeper_->Replace(poll_.leases);
  core::Duration smallest{};
  {
    const std::lock_guard lock(mu_);
    ++health_.reloads;
    health_.smallest_interval = poll_.scheduler->SmallestInterval();
    smallest = health_.smallest_interval;
  }
  log_.Log(LogLevel::kInfo, "config.reloaded",
           {{"config", options_.config_path},
            {"groups", poll_.scheduler->size()},
            {"channels", poll_.channels},
            {"smallest_interval", core::FormatDuration(smallest)}});
  if (!next->restart_needed.empty()) {
    std::string settings;
    for (const std::string& setting : next->restart_needed) {
      settings += (settings.empty() ? "" : ", ") + setting;
    }
    log_.Log(LogLevel::kWarn, "config.restart_needed",
             {{"config", options_.config_path},
              {"settings", settings},
              {"kept",
               "the values the daemon started with, until it restarts; every other "
               "setting of the file is applied"}});
  }
  return {};
}

DispatchReport DaemonRuntime::DispatchRound() {
  if (std::unique_ptr<DispatchPlan> next = next_dispatch_.Take()) dispatch_ = std::move(next);
  if (!dispatch_ || !dispatch_->enabled()) return {};
  DispatchReport report = dispatch_->RunOnce();
  for (const std::string& error : report.errors) {
    // A store that stopped answering is logged when that starts and ends, not every round.
    if (!report.store_error.empty() && error == report.store_error) continue;
    log_.Log(LogLevel::kError, "dispatch.error", {{"error", error}});
  }
  switch (dispatch_outage_.Observe(report.store_error)) {
    case StoreOutage::Change::kStarted:
      log_.Log(LogLevel::kError, "dispatch.store_unavailable",
               {{"error", report.store_error},
                {"retry", "every 100ms doubling up to 5s until the store answers"}});
      break;
    case StoreOutage::Change::kEnded:
      log_.Log(LogLevel::kInfo, "dispatch.store_recovered",
               {{"failed_rounds", dispatch_outage_.failures()}});
      break;
    case StoreOutage::Change::kNone:
      break;
  }
  const core::Status writes =
      report.store_error.empty()
          ? core::Status{}
          : core::Status(core::MakeError(core::ErrorCode::kUnavailable, report.store_error));
  for (RunListener* listener : listeners_) listener->OnStoreWrites("dispatch", writes);
  if (report.trimmed > 0) {
    log_.Log(LogLevel::kInfo, "outbox.trimmed", {{"rows", report.trimmed}});
  }
  if (report.claimed > 0) {
    log_.Log(report.dead > 0 ? LogLevel::kWarn : LogLevel::kInfo, "dispatch.round",
             {{"claimed", report.claimed},
              {"sent", report.sent},
              {"retried", report.retried},
              {"dead", report.dead},
              {"lost_leases", report.lost_leases}});
    const core::WallTime now = clock_.Now();
    for (RunListener* listener : listeners_) listener->OnDispatch(report, now);
  }
  return report;
}

core::Duration DaemonRuntime::DispatchWaitAfter(const DispatchReport& report) {
  const core::Duration idle = dispatch_->idle_interval();
  // The rows' due times are wall times (stored, shared with other processes); the wait itself
  // runs on the clock's monotonic reading, in RunControl::WaitFor.
  return dispatch_outage_.Wait(dispatch_->enabled() ? DispatchWait(report, clock_.Now(), idle)
                                                    : idle);
}

void DaemonRuntime::DispatchLoop() {
  while (!control_.stop_requested()) {
    const DispatchReport report = DispatchRound();
    const core::Duration wait = DispatchWaitAfter(report);
    if (wait > core::Duration::zero()) control_.WaitFor(clock_, wait, /*on_reload=*/false);
  }
  // A reload waiting for this thread gives up instead of waiting forever.
  next_dispatch_.Close();
}

DaemonHealth DaemonRuntime::Health() const {
  const std::lock_guard lock(mu_);
  return health_;
}

}  // namespace quell::app
