#include "quell/cli/daemon.h"

#include <algorithm>
#include <map>
#include <utility>

#include "quell/adapters/config/config_loader.h"
#include "quell/app/run_id.h"
#include "quell/cli/dispatch_loop.h"
#include "quell/cli/dispatch_wiring.h"
#include "quell/cli/poll_wiring.h"
#include "quell/cli/store_url.h"
#include "quell/core/decision.h"

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
  auto loaded = config::LoadConfig(options.config_path, config::ProcessEnv());
  if (!loaded) return loaded.error();
  if (options.owner.empty()) options.owner = DefaultLeaseOwner();
  std::unique_ptr<Daemon> daemon(
      new Daemon(std::move(options), clock, log, control, std::move(listeners)));
  LogWarnings(log, *loaded);
  auto config = std::make_shared<const config::Config>(std::move(*loaded));
  auto poll = daemon->BuildPollSide(config);
  if (!poll) return poll.error();
  daemon->poll_ = std::move(*poll);
  if (daemon->options_.dispatch) {
    auto dispatch = daemon->BuildDispatchSide(config);
    if (!dispatch) return dispatch.error();
    daemon->dispatch_ = std::move(*dispatch);
  }
  daemon->health_.smallest_interval = daemon->poll_->scheduler->SmallestInterval();
  return daemon;
}

std::string Daemon::StoreUrl(const config::Config& config) const {
  return options_.store_url.empty() ? config.store_url : options_.store_url;
}

core::Result<std::unique_ptr<Daemon::PollSide>> Daemon::BuildPollSide(
    std::shared_ptr<const config::Config> config) {
  auto side = std::make_unique<PollSide>();
  auto store = OpenStore(StoreUrl(*config));
  if (!store) return store.error();
  side->store = std::move(*store);
  const std::vector<core::Duration> intervals = Intervals(*config);
  for (const core::Duration interval : intervals) {
    auto wiring = PollWiring::Create(OnlyInterval(*config, interval), *side->store, clock_);
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
    auto store = OpenStore(url);
    if (!store) return store.error();
    side->store = std::move(*store);
    auto* outbox = dynamic_cast<core::OutboxStore*>(side->store.get());
    if (outbox == nullptr) {
      return core::MakeError(core::ErrorCode::kInvalidArgument,
                             "the store at " + url + " cannot dispatch");
    }
    auto wiring = DispatchWiring::Create(*config, *outbox, clock_, options_.owner, url);
    if (!wiring) return wiring.error();
    side->wiring = std::move(*wiring);
  }
  side->config = std::move(config);
  return side;
}

int Daemon::Run() {
  log_.Log(LogLevel::kInfo, "run.start",
           {{"config", options_.config_path},
            {"groups", std::to_string(poll_->groups.size())},
            {"smallest_interval", core::FormatDuration(health_.smallest_interval)},
            {"dispatch", dispatch_ && dispatch_->wiring ? "on" : "off"}});
  std::thread dispatcher;
  if (dispatch_) dispatcher = std::thread([this] { DispatchLoop(); });
  while (!control_.stop_requested()) {
    if (control_.TakeReload()) Reload();
    for (const size_t group : poll_->scheduler->Due(clock_.Now())) {
      if (control_.stop_requested()) break;
      RunGroup(group);
    }
    if (control_.stop_requested()) break;
    const core::Duration wait = poll_->scheduler->NextDue() - clock_.Now();
    if (wait > core::Duration::zero()) control_.WaitFor(clock_, wait, /*on_reload=*/true);
  }
  log_.Log(LogLevel::kInfo, "run.stopping", {{"reason", "signal"}});
  if (dispatcher.joinable()) dispatcher.join();
  log_.Log(LogLevel::kInfo, "run.stopped", {});
  return 0;
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
    const auto n = [&by](core::DecisionKind kind) {
      return std::to_string(by[static_cast<size_t>(kind)]);
    };
    const bool bad = !c.source_ok || !c.applied;
    log_.Log(bad ? LogLevel::kWarn : LogLevel::kInfo, "poll.condition",
             {{"poll_id", run_id},
              {"condition", c.condition},
              {"source", c.source},
              {"observations", std::to_string(c.observations)},
              {"notify", n(core::DecisionKind::kNotify)},
              {"resolve", n(core::DecisionKind::kResolve)},
              {"outbox_rows", std::to_string(c.summary.poll.outbox_rows)},
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
  {
    const std::lock_guard lock(mu_);
    ++health_.cycles;
    health_.last_cycle_end = finished;
    if (report.ok()) health_.last_complete_cycle = finished;
  }
  log_.Log(report.ok() ? LogLevel::kInfo : LogLevel::kWarn, "poll.cycle_end",
           {{"poll_id", run_id},
            {"ok", report.ok() ? "true" : "false"},
            {"conditions", std::to_string(report.conditions.size())},
            {"duration", core::FormatDuration(finished - started)}});
  for (app::RunListener* listener : listeners_) listener->OnCycleEnd(run_id, report, finished);
  // New outbox rows: the dispatcher need not wait out its idle interval.
  control_.Wake();
}

void Daemon::Reload() {
  auto loaded = config::LoadConfig(options_.config_path, config::ProcessEnv());
  const auto refuse = [this](const std::string& why) {
    {
      const std::lock_guard lock(mu_);
      ++health_.failed_reloads;
    }
    log_.Log(LogLevel::kError, "config.reload_failed",
             {{"config", options_.config_path}, {"error", why}, {"kept", "the running config"}});
  };
  if (!loaded) return refuse(loaded.error().message);
  LogWarnings(log_, *loaded);
  auto config = std::make_shared<const config::Config>(std::move(*loaded));
  auto poll = BuildPollSide(config);
  if (!poll) return refuse(poll.error().message);
  poll_ = std::move(*poll);
  {
    const std::lock_guard lock(mu_);
    ++health_.reloads;
    health_.smallest_interval = poll_->scheduler->SmallestInterval();
    next_dispatch_ = config;
  }
  control_.Wake();
  log_.Log(LogLevel::kInfo, "config.reloaded",
           {{"config", options_.config_path},
            {"groups", std::to_string(poll_->groups.size())},
            {"smallest_interval", core::FormatDuration(health_.smallest_interval)}});
}

void Daemon::DispatchLoop() {
  while (!control_.stop_requested()) {
    std::shared_ptr<const config::Config> next;
    {
      const std::lock_guard lock(mu_);
      next = std::move(next_dispatch_);
      next_dispatch_.reset();
    }
    if (next) {
      auto side = BuildDispatchSide(next);
      if (side) {
        dispatch_ = std::move(*side);
      } else {
        log_.Log(LogLevel::kError, "dispatch.reload_failed",
                 {{"error", side.error().message}, {"kept", "the running channels"}});
      }
    }
    const core::Duration idle = dispatch_->config->dispatch.idle_interval;
    if (!dispatch_->wiring) {
      control_.WaitFor(clock_, idle, /*on_reload=*/false);
      continue;
    }
    const app::DispatchReport report = dispatch_->wiring->dispatcher().RunOnce();
    const core::WallTime now = clock_.Now();
    for (const std::string& error : report.errors) {
      log_.Log(LogLevel::kError, "dispatch.error", {{"error", error}});
    }
    if (report.claimed > 0) {
      log_.Log(report.dead > 0 ? LogLevel::kWarn : LogLevel::kInfo, "dispatch.round",
               {{"claimed", std::to_string(report.claimed)},
                {"sent", std::to_string(report.sent)},
                {"retried", std::to_string(report.retried)},
                {"dead", std::to_string(report.dead)},
                {"lost_leases", std::to_string(report.lost_leases)}});
      for (app::RunListener* listener : listeners_) listener->OnDispatch(report, now);
    }
    const core::Duration wait = DispatchWait(report, now, idle);
    if (wait > core::Duration::zero()) control_.WaitFor(clock_, wait, /*on_reload=*/false);
  }
}

DaemonHealth Daemon::Health() const {
  const std::lock_guard lock(mu_);
  return health_;
}

}  // namespace quell::cli
