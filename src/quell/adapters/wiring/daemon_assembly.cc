#include "quell/adapters/wiring/daemon_assembly.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/system/lease_owner.h"
#include "quell/adapters/wiring/dispatch_wiring.h"
#include "quell/adapters/wiring/poll_wiring.h"
#include "quell/adapters/wiring/restart_settings.h"
#include "quell/adapters/wiring/startup_check.h"
#include "quell/adapters/wiring/store_url.h"
#include "quell/core/ports/store.h"

namespace quell::wiring {
namespace {

// The config with only the conditions polled every `interval`.
config::Config OnlyInterval(const config::Config& config, core::Duration interval) {
  config::Config part = config;
  std::erase_if(part.error_conditions,
                [interval](const auto& c) { return c.common.interval != interval; });
  std::erase_if(part.metric_conditions,
                [interval](const auto& m) { return m.condition.common.interval != interval; });
  std::erase_if(part.push_conditions,
                [interval](const auto& c) { return c.common.interval != interval; });
  std::erase_if(part.sentry_conditions,
                [interval](const auto& s) { return s.condition.common.interval != interval; });
  std::erase_if(part.datadog_conditions,
                [interval](const auto& d) { return d.condition.common.interval != interval; });
  return part;
}

std::vector<core::Duration> IntervalsOf(const config::Config& config) {
  std::vector<core::Duration> intervals;
  for (const auto& c : config.error_conditions) intervals.push_back(c.common.interval);
  for (const auto& m : config.metric_conditions) intervals.push_back(m.condition.common.interval);
  for (const auto& c : config.push_conditions) intervals.push_back(c.common.interval);
  for (const auto& s : config.sentry_conditions) intervals.push_back(s.condition.common.interval);
  for (const auto& d : config.datadog_conditions) intervals.push_back(d.condition.common.interval);
  std::sort(intervals.begin(), intervals.end());
  intervals.erase(std::unique(intervals.begin(), intervals.end()), intervals.end());
  return intervals;
}

// One PollWiring per interval, on one store connection.
struct WiredPollPlan : public app::PollPlan {
  std::vector<core::Duration> Intervals() const override { return intervals; }
  app::CycleReport RunCycle(size_t group, app::DecisionSink& sink,
                            const app::HeldLeases* held) override {
    return groups[group]->RunCycle(sink, held);
  }
  std::vector<std::string> Leases(size_t group) const override {
    return groups[group]->LeaseNames();
  }

  std::optional<core::Store> store;
  std::vector<core::Duration> intervals;
  std::vector<std::unique_ptr<PollWiring>> groups;  // after the store they write to
};

// The dispatcher of a config's channels, on a store connection of its own.
struct WiredDispatchPlan : public app::DispatchPlan {
  bool enabled() const override { return wiring != nullptr; }
  app::DispatchReport RunOnce() override { return wiring->dispatcher().RunOnce(); }
  core::Duration idle_interval() const override { return idle; }

  std::optional<core::Store> store;
  std::unique_ptr<DispatchWiring> wiring;  // null when no channel is configured
  core::Duration idle{};
};

class ConfigFileLoader : public app::RuntimeConfigLoader {
 public:
  ConfigFileLoader(DaemonOptions options, core::Clock& clock)
      : options_(std::move(options)), clock_(clock) {}

  core::Result<app::RuntimeConfig> Load() override {
    auto loaded = config::LoadConfig(options_.config_path, config::ProcessEnv());
    if (!loaded) return loaded.error();
    const config::Config& config = *loaded;
    const StartupProblems problems = CheckStartup(
        config, {.store_override = options_.store_url, .dispatch = options_.dispatch}, clock_);
    if (!problems.errors.empty()) {
      std::string message;
      for (const std::string& error : problems.errors) {
        message += (message.empty() ? "" : "\n") + error;
      }
      return core::MakeError(core::ErrorCode::kInvalidArgument, message);
    }
    // What only a restart applies keeps its first value, the store included: the poll leases
    // live in the store the daemon started with (the lease keeper's connection), so polls
    // committed elsewhere would all be fenced.
    if (!started_) started_ = config;
    const std::string url = options_.store_url.empty() ? started_->store_url : options_.store_url;
    app::RuntimeConfig out;
    out.restart_needed = SettingsNeedingRestart(*started_, config, !options_.store_url.empty());
    out.path = config.path;
    out.channels = config.channels.size();
    out.poll_lease = config.polling.lease;
    auto poll = std::make_unique<WiredPollPlan>();
    auto store = OpenStore(url);
    if (!store) return store.error();
    poll->store.emplace(std::move(*store));
    for (const PollGroupConfig& group : PollGroupsOf(config)) {
      auto wiring = PollWiring::Create(group.config, poll->store->incidents(), clock_,
                                       &poll->store->operators(), &config);
      if (!wiring) return wiring.error();
      poll->intervals.push_back(group.interval);
      poll->groups.push_back(std::move(*wiring));
    }
    out.poll = std::move(poll);
    if (options_.dispatch) {
      auto dispatch = std::make_unique<WiredDispatchPlan>();
      dispatch->idle = config.dispatch.idle_interval;
      if (!config.channels.empty()) {
        auto dispatch_store = OpenStore(url);
        if (!dispatch_store) return dispatch_store.error();
        dispatch->store.emplace(std::move(*dispatch_store));
        auto wiring =
            DispatchWiring::Create(config, dispatch->store->outbox(), clock_, options_.owner, url);
        if (!wiring) return wiring.error();
        dispatch->wiring = std::move(*wiring);
      }
      out.dispatch = std::move(dispatch);
    }
    out.warnings = config.warnings;
    // The poller reports an unreachable Prometheus every cycle; it does not stop a start.
    out.warnings.insert(out.warnings.end(), problems.unreachable.begin(),
                        problems.unreachable.end());
    // Both sides built: the runtime switches to this config.
    if (options_.on_load) options_.on_load(config);
    return out;
  }

 private:
  const DaemonOptions options_;
  core::Clock& clock_;
  std::optional<config::Config> started_;  // the first load's
};

}  // namespace

std::vector<PollGroupConfig> PollGroupsOf(const config::Config& config) {
  std::vector<PollGroupConfig> groups;
  for (const core::Duration interval : IntervalsOf(config)) {
    groups.push_back({interval, OnlyInterval(config, interval)});
  }
  return groups;
}

core::Result<std::unique_ptr<app::DaemonRuntime>> MakeDaemon(
    DaemonOptions options, core::Clock& clock, core::EventLog& log, app::RunControl& control,
    std::vector<app::RunListener*> listeners) {
  if (options.owner.empty()) options.owner = system::DefaultLeaseOwner();
  app::RuntimeOptions runtime{
      .config_path = options.config_path, .seed = options.seed, .jitter = options.jitter};
  // The lease keeper's own connection (the third, after the poller's and the dispatcher's), so a
  // renewal never waits behind a long poll transaction. The store named at start keeps the
  // leases for the process's life: a reload that moves the store needs a restart anyway.
  // A config that does not load, or that start-up refuses (an unset secret), is reported whole
  // by the loader below, every problem located, and no store is opened (nor a file created).
  auto config = config::LoadConfig(options.config_path, config::ProcessEnv());
  if (config &&
      CheckStartup(*config, {.store_override = options.store_url, .dispatch = options.dispatch},
                   clock)
          .errors.empty()) {
    auto leases = OpenStore(options.store_url.empty() ? config->store_url : options.store_url);
    if (!leases) return leases.error();
    runtime.lease_connection = std::make_shared<core::Store>(std::move(*leases));
    runtime.leases = &runtime.lease_connection->leases();
  }
  runtime.instance = app::InstanceIdentity{.id = options.owner,
                                           .host = system::HostName(),
                                           .pid = system::ProcessId(),
                                           .version = options.version,
                                           .started_at = clock.Now()};
  return app::DaemonRuntime::Create(std::make_unique<ConfigFileLoader>(std::move(options), clock),
                                    clock, log, control, std::move(runtime), std::move(listeners));
}

}  // namespace quell::wiring
