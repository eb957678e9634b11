#include "quell/cli/daemon.h"

#include <algorithm>
#include <map>
#include <utility>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/wiring/dispatch_wiring.h"
#include "quell/adapters/wiring/poll_wiring.h"
#include "quell/adapters/wiring/startup_check.h"
#include "quell/adapters/wiring/store_url.h"
#include "quell/app/run_id.h"
#include "quell/cli/dispatch_loop.h"
#include "quell/core/engine/decision.h"

namespace quell::cli {
namespace {

using core::LogLevel;

// Logs the decisions that change what people see (opens, renotifies, resolves) at info and
// the rest at debug, each with its incident key and the cycle's run id as the poll id.
class LoggingSink : public app::DecisionSink {
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

// The config with only the conditions polled every `interval`.
config::Config OnlyInterval(const config::Config& config, core::Duration interval) {
  config::Config part = config;
  std::erase_if(part.error_conditions,
                [interval](const auto& c) { return c.common.interval != interval; });
  std::erase_if(part.metric_conditions,
                [interval](const auto& m) { return m.condition.common.interval != interval; });
  return part;
}

std::vector<core::Duration> Intervals(const config::Config& config) {
  std::vector<core::Duration> intervals;
  for (const auto& c : config.error_conditions) intervals.push_back(c.common.interval);
  for (const auto& m : config.metric_conditions) intervals.push_back(m.condition.common.interval);
  std::sort(intervals.begin(), intervals.end());
  intervals.erase(std::unique(intervals.begin(), intervals.end()), intervals.end());
  return intervals;
}

// Valid settings that weaken something (an unsigned webhook), said at every start and reload
// so they stay visible in the log rather than only in `quell config check`.
void LogWarnings(core::EventLog& log, const config::Config& config) {
  for (const std::string& warning : config.warnings) {
    log.Log(LogLevel::kWarn, "config.warning", {{"config", config.path}, {"warning", warning}});
  }
}

}  // namespace

Daemon::PollSide::~PollSide() = default;
Daemon::DispatchSide::~DispatchSide() = default;

Daemon::Daemon(DaemonOptions options, core::Clock& clock, core::EventLog& log,
               app::RunControl& control, std::vector<app::RunListener*> listeners)
    : options_(std::move(options)),
      clock_(clock),
      log_(log),
      control_(control),
      listeners_(std::move(listeners)),
      run_id_state_(options_.seed) {}

Daemon::~Daemon() = default;

core::Result<std::unique_ptr<Daemon>> Daemon::Create(DaemonOptions options, core::Clock& clock,
                                                     core::EventLog& log, app::RunControl& control,
                                                     std::vector<app::RunListener*> listeners) {
  if (options.owner.empty()) options.owner = DefaultLeaseOwner();
  std::unique_ptr<Daemon> daemon(
      new Daemon(std::move(options), clock, log, control, std::move(listeners)));
  auto generation = daemon->Prepare();
  if (!generation) return generation.error();
  daemon->poll_ = std::move(generation->poll);
  daemon->dispatch_ = std::move(generation->dispatch);
  daemon->health_.smallest_interval = daemon->poll_->scheduler->SmallestInterval();
  return daemon;
}

core::Result<Daemon::Generation> Daemon::Prepare() {
  auto loaded = config::LoadConfig(options_.config_path, config::ProcessEnv());
  if (!loaded) return loaded.error();
  const wiring::StartupProblems problems = wiring::CheckStartup(
      *loaded, {.store_override = options_.store_url, .dispatch = options_.dispatch}, clock_);
  if (!problems.errors.empty()) {
    std::string message;
    for (const std::string& error : problems.errors) {
      message += (message.empty() ? "" : "\n") + error;
    }
    return core::MakeError(core::ErrorCode::kInvalidArgument, message);
  }
  auto config = std::make_shared<const config::Config>(std::move(*loaded));
  Generation generation;
  auto poll = BuildPollSide(config);
  if (!poll) return poll.error();
  generation.poll = std::move(*poll);
  if (options_.dispatch) {
    auto dispatch = BuildDispatchSide(config);
    if (!dispatch) return dispatch.error();
    generation.dispatch = std::move(*dispatch);
  }
  LogWarnings(log_, *config);
  // The poller reports an unreachable Prometheus every cycle; it does not stop a start.
  for (const std::string& warning : problems.unreachable) {
    log_.Log(LogLevel::kWarn, "config.warning", {{"config", config->path}, {"warning", warning}});
  }
  return generation;
}

std::string Daemon::StoreUrl(const config::Config& config) const {
  return options_.store_url.empty() ? config.store_url : options_.store_url;
}

core::Result<std::unique_ptr<Daemon::PollSide>> Daemon::BuildPollSide(
    std::shared_ptr<const config::Config> config) {
  auto side = std::make_unique<PollSide>();
  auto store = wiring::OpenStore(StoreUrl(*config));
  if (!store) return store.error();
  side->store.emplace(std::move(*store));
  const std::vector<core::Duration> intervals = Intervals(*config);
  for (const core::Duration interval : intervals) {
    auto wiring = wiring::PollWiring::Create(OnlyInterval(*config, interval),
                                             side->store->incidents(), clock_);
    if (!wiring) return wiring.error();
    side->groups.push_back(std::move(*wiring));
  }
  side->scheduler = std::make_unique<app::Scheduler>(
      intervals, clock_.Now(),
      app::SchedulerOptions{.jitter = options_.jitter, .seed = options_.seed ^ 0x5eedULL});
  side->config = std::move(config);
  return side;
}

core::Result<std::unique_ptr<Daemon::DispatchSide>> Daemon::BuildDispatchSide(
    std::shared_ptr<const config::Config> config) {
  auto side = std::make_unique<DispatchSide>();
  if (!config->channels.empty()) {
    const std::string url = StoreUrl(*config);
    auto store = wiring::OpenStore(url);
    if (!store) return store.error();
    side->store.emplace(std::move(*store));
    auto wiring =
        wiring::DispatchWiring::Create(*config, side->store->outbox(), clock_, options_.owner, url);
    if (!wiring) return wiring.error();
    side->wiring = std::move(*wiring);
  }
  side->config = std::move(config);
  return side;
}

int Daemon::Run() {
  log_.Log(LogLevel::kInfo, "run.start",
           {{"config", options_.config_path},
            {"groups", poll_->groups.size()},
            {"smallest_interval", core::FormatDuration(health_.smallest_interval)},
            {"dispatch", dispatch_ && dispatch_->wiring ? "on" : "off"}});
  std::thread dispatcher;
  if (dispatch_) {
    dispatch_thread_ = true;
    dispatcher = std::thread([this] { DispatchLoop(); });
  }
  while (!control_.stop_requested()) {
    if (control_.TakeReload()) (void)Reload();
    PollDue();
    if (control_.stop_requested()) break;
    const core::Duration wait = poll_->scheduler->NextDue() - clock_.Now();
    if (wait > core::Duration::zero()) control_.WaitFor(clock_, wait, /*on_reload=*/true);
  }
  log_.Log(LogLevel::kInfo, "run.stopping", {{"reason", "signal"}});
  if (dispatcher.joinable()) dispatcher.join();
  log_.Log(LogLevel::kInfo, "run.stopped", {});
  return 0;
}

void Daemon::PollDue() {
  for (const size_t group : poll_->scheduler->Due(clock_.Now())) {
    if (control_.stop_requested()) break;
    RunGroup(group);
  }
}

void Daemon::RunGroup(size_t group) {
  const std::string run_id = app::NewRunId(run_id_state_);
  const core::WallTime started = clock_.Now();
  const std::string interval = core::FormatDuration(poll_->scheduler->interval(group));
  for (app::RunListener* listener : listeners_) listener->OnCycleStart(run_id, started);
  log_.Log(LogLevel::kInfo, "poll.cycle_start", {{"poll_id", run_id}, {"interval", interval}});

  LoggingSink sink(log_, run_id);
  const app::CycleReport report = poll_->groups[group]->RunCycle(sink);
  const core::WallTime finished = clock_.Now();
  for (const app::ConditionOutcome& c : report.conditions) {
    const auto& by = c.summary.poll.by_decision;
    const auto n = [&by](core::DecisionKind kind) { return by[static_cast<size_t>(kind)]; };
    const bool bad = !c.source_ok || !c.applied;
    log_.Log(bad ? LogLevel::kWarn : LogLevel::kInfo, "poll.condition",
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
      log_.Log(LogLevel::kWarn, "poll.no_series",
               {{"poll_id", run_id},
                {"condition", c.condition},
                {"query", c.query},
                {"empty_polls", std::to_string(*c.empty_polls)},
                {"hint",
                 "the query answered no series the condition keeps, so it observes nothing; "
                 "check the query and its labels with `quell schema check`"}});
    }
  }
  poll_->scheduler->Completed(group, started, finished);
  // A condition that did not commit failed in the store (its source's failures still commit
  // as unknown observations).
  core::Status writes;
  for (const app::ConditionOutcome& c : report.conditions) {
    if (!c.applied) {
      writes = core::MakeError(core::ErrorCode::kUnavailable, c.apply_error);
      break;
    }
  }
  for (app::RunListener* listener : listeners_) listener->OnStoreWrites("poll", writes);
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
            {"duration", core::FormatDuration(finished - started)}});
  for (app::RunListener* listener : listeners_) listener->OnCycleEnd(run_id, report, finished);
  // New outbox rows: the dispatcher need not wait out its idle interval.
  control_.Wake();
}

core::Status Daemon::Reload() {
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
  core::Duration smallest{};
  {
    const std::lock_guard lock(mu_);
    ++health_.reloads;
    health_.smallest_interval = poll_->scheduler->SmallestInterval();
    smallest = health_.smallest_interval;
  }
  log_.Log(LogLevel::kInfo, "config.reloaded",
           {{"config", options_.config_path},
            {"groups", poll_->groups.size()},
            {"channels", poll_->config->channels.size()},
            {"smallest_interval", core::FormatDuration(smallest)}});
  return {};
}

app::DispatchReport Daemon::DispatchRound() {
  if (std::unique_ptr<DispatchSide> next = next_dispatch_.Take()) dispatch_ = std::move(next);
  if (!dispatch_ || !dispatch_->wiring) return {};
  app::DispatchReport report = dispatch_->wiring->dispatcher().RunOnce();
  for (const std::string& error : report.errors) {
    // A store that stopped answering is logged when that starts and ends, not every round.
    if (!report.store_error.empty() && error == report.store_error) continue;
    log_.Log(LogLevel::kError, "dispatch.error", {{"error", error}});
  }
  switch (dispatch_outage_.Observe(report.store_error)) {
    case app::StoreOutage::Change::kStarted:
      log_.Log(LogLevel::kError, "dispatch.store_unavailable",
               {{"error", report.store_error},
                {"retry", "every 100ms doubling up to 5s until the store answers"}});
      break;
    case app::StoreOutage::Change::kEnded:
      log_.Log(LogLevel::kInfo, "dispatch.store_recovered",
               {{"failed_rounds", dispatch_outage_.failures()}});
      break;
    case app::StoreOutage::Change::kNone:
      break;
  }
  const core::Status writes =
      report.store_error.empty()
          ? core::Status{}
          : core::Status(core::MakeError(core::ErrorCode::kUnavailable, report.store_error));
  for (app::RunListener* listener : listeners_) listener->OnStoreWrites("dispatch", writes);
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
    for (app::RunListener* listener : listeners_) listener->OnDispatch(report, now);
  }
  return report;
}

void Daemon::DispatchLoop() {
  while (!control_.stop_requested()) {
    const app::DispatchReport report = DispatchRound();
    const core::Duration idle = dispatch_->config->dispatch.idle_interval;
    const core::Duration wait =
        dispatch_outage_.Wait(dispatch_->wiring ? DispatchWait(report, clock_.Now(), idle) : idle);
    if (wait > core::Duration::zero()) control_.WaitFor(clock_, wait, /*on_reload=*/false);
  }
  // A reload waiting for this thread gives up instead of waiting forever.
  next_dispatch_.Close();
}

DaemonHealth Daemon::Health() const {
  const std::lock_guard lock(mu_);
  return health_;
}

}  // namespace quell::cli
