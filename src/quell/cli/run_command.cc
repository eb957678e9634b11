#include "quell/cli/run_command.h"

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/logging/spdlog_event_log.h"
#include "quell/adapters/system/signal_thread.h"
#include "quell/adapters/wiring/restart_settings.h"
#include "quell/adapters/wiring/run_assembly.h"
#include "quell/adapters/wiring/startup_check.h"
#include "quell/app/run_control.h"
#include "quell/cli/version.h"
#include "quell/core/text/url.h"

namespace quell::cli {
namespace {

constexpr int kConfigError = 2;

core::LogLevel ToLevel(config::LogLevelSetting level) {
  switch (level) {
    case config::LogLevelSetting::kDebug:
      return core::LogLevel::kDebug;
    case config::LogLevelSetting::kInfo:
      return core::LogLevel::kInfo;
    case config::LogLevelSetting::kWarn:
      return core::LogLevel::kWarn;
    case config::LogLevelSetting::kError:
      return core::LogLevel::kError;
  }
  return core::LogLevel::kInfo;
}

}  // namespace

int RunDaemonCommand(const RunCommandOptions& options, core::Clock& clock, std::FILE* err) {
  // First, before any thread exists, so every later thread inherits the blocked signals.
  app::RunControl control;
  const system::SignalThread signals(control);
  if (!signals.ok()) {
    std::fprintf(err, "quell run: cannot watch signals (signalfd failed)\n");
    return kConfigError;
  }
  // Read once for the log settings; a reload keeps the log as it started.
  auto config = config::LoadConfig(options.config_path, config::ProcessEnv());
  if (!config) {
    std::fprintf(err, "quell run: %s\n", config.error().message.c_str());
    return kConfigError;
  }
  logging::SpdlogEventLog log(
      clock, logging::EventLogOptions{.format = config->log.format == config::LogFormat::kText
                                                    ? logging::EventFormat::kText
                                                    : logging::EventFormat::kJson,
                                      .min_level = ToLevel(config->log.level)});
  std::random_device entropy;
  auto run = wiring::RunAssembly::Create(
      *config,
      wiring::RunOptions{.config_path = options.config_path,
                         .store_url = options.store_url,
                         .owner = options.owner,
                         .dispatch = !options.no_dispatch,
                         .seed = (static_cast<uint64_t>(entropy()) << 32U) | entropy(),
                         .version = kVersion},
      clock, log, control);
  if (!run) {
    // Every problem of the config, each on its own line, before anything binds or runs.
    std::istringstream lines(run.error().message);
    for (std::string line; std::getline(lines, line);) {
      std::fprintf(err, "quell run: %s\n", line.c_str());
    }
    return kConfigError;
  }
  auto port = (*run)->Serve();
  if (!port) {
    std::fprintf(err, "quell run: http.listen %s: %s\n", config->http.listen.c_str(),
                 port.error().message.c_str());
    return kConfigError;
  }
  const std::string bound = std::to_string(*port);
  log.Log(core::LogLevel::kInfo, "http.listening",
          {{"listen", config->http.listen}, {"port", bound}});
  return (*run)->Run();
}

int RunConfigCheck(const ConfigCheckOptions& options, core::Clock& clock, std::FILE* out) {
  const std::string& path = options.config_path;
  config::CheckedConfig checked = config::ReadConfigForCheck(path, config::ProcessEnv());
  std::vector<std::string> errors = std::move(checked.errors);
  const config::Config& config = checked.config;
  // What start-up checks beyond the file, on whatever could be read of it; a file that cannot
  // be read at all (no config path set) has nothing more to check.
  if (!config.path.empty() && !(errors.size() == 1 && errors[0].rfind(path + ": ", 0) == 0)) {
    wiring::StartupProblems problems = wiring::CheckStartup(
        config, {.store_override = "", .dispatch = true, .network = !options.offline}, clock);
    errors.insert(errors.end(), problems.errors.begin(), problems.errors.end());
    errors.insert(errors.end(), problems.unreachable.begin(), problems.unreachable.end());
    config::SortByLocation(path, errors);
  }
  if (!errors.empty()) {
    for (const std::string& error : errors) std::fprintf(out, "%s\n", error.c_str());
    std::fprintf(out, "config check: %zu error%s in %s\n", errors.size(),
                 errors.size() == 1 ? "" : "s", path.c_str());
    return kConfigError;
  }
  for (const std::string& warning : config.warnings) {
    std::fprintf(out, "warning: %s\n", warning.c_str());
  }
  // Each kind of condition by count: the three every config names, then the sources only some
  // use, so a config without them reads as it always has.
  std::vector<std::string> kinds = {std::to_string(config.error_conditions.size()) +
                                    " error-group"};
  if (!config.sentry_conditions.empty()) {
    kinds.push_back(std::to_string(config.sentry_conditions.size()) + " sentry_issues");
  }
  if (!config.datadog_conditions.empty()) {
    kinds.push_back(std::to_string(config.datadog_conditions.size()) + " datadog_monitors (" +
                    config.datadog.site + ")");
  }
  kinds.push_back(std::to_string(config.metric_conditions.size()) + " metric");
  kinds.push_back(std::to_string(config.push_conditions.size()) + " push");
  std::string counted;
  for (size_t i = 0; i < kinds.size(); ++i) {
    counted += (i == 0 ? "" : i + 1 == kinds.size() ? " and " : ", ") + kinds[i];
  }
  std::fprintf(out, "config check: %s ok: %s conditions, %zu channels, store %s%s\n", path.c_str(),
               counted.c_str(), config.channels.size(),
               core::MaskUrlPassword(config.store_url).c_str(),
               options.offline ? " (offline: no query sent to Prometheus)" : "");
  const auto joined = [](const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
  };
  if (options.running_path.empty()) {
    std::fprintf(out,
                 "config check: a reload (SIGHUP) applies every setting but these, which need "
                 "a restart: %s\n",
                 joined(wiring::RestartOnlySettings()).c_str());
    return 0;
  }
  auto running = config::LoadConfig(options.running_path, config::ProcessEnv());
  if (!running) {
    std::fprintf(out, "config check: --running: %s\n", running.error().message.c_str());
    return kConfigError;
  }
  const std::vector<std::string> restart =
      wiring::SettingsNeedingRestart(*running, config, /*store_override=*/false);
  if (restart.empty()) {
    std::fprintf(out, "config check: a reload (SIGHUP) applies every change from %s\n",
                 options.running_path.c_str());
  } else {
    std::fprintf(out,
                 "config check: a reload (SIGHUP) keeps %s as %s has them: restart to apply "
                 "them (the other changes apply at a reload)\n",
                 joined(restart).c_str(), options.running_path.c_str());
  }
  return 0;
}

}  // namespace quell::cli
