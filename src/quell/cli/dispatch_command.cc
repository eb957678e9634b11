#include "quell/cli/dispatch_command.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <random>
#include <string>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/system/system_clock.h"
#include "quell/cli/dispatch_wiring.h"
#include "quell/cli/store_url.h"

namespace quell::cli {
namespace {

constexpr int kConfigError = 2;

std::atomic<bool> g_stop{false};

void OnStopSignal(int /*signal*/) { g_stop.store(true); }

std::string DefaultOwner() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::random_device random;
  return std::string(host) + ":" + std::to_string(getpid()) + ":" + std::to_string(random());
}

std::string Summary(const app::DispatchReport& report) {
  std::string line = "dispatch: " + std::to_string(report.claimed) + " claimed, " +
                     std::to_string(report.sent) + " sent, " + std::to_string(report.retried) +
                     " retried, " + std::to_string(report.dead) + " dead";
  if (report.lost_leases > 0) line += ", " + std::to_string(report.lost_leases) + " lost leases";
  if (report.deferred > 0) line += ", " + std::to_string(report.deferred) + " deferred";
  if (report.meta_alerts > 0) line += ", " + std::to_string(report.meta_alerts) + " meta-alerts";
  return line;
}

}  // namespace

int RunDispatch(const DispatchCommandOptions& options, std::FILE* err) {
  auto config = config::LoadConfig(options.config_path, config::ProcessEnv());
  if (!config) {
    std::fprintf(err, "quell dispatch: %s\n", config.error().message.c_str());
    return kConfigError;
  }
  if (config->channels.empty()) {
    std::fprintf(err, "quell dispatch: %s: no channels are configured: nothing can be sent\n",
                 options.config_path.c_str());
    return kConfigError;
  }
  const std::string url = options.store_url.empty() ? config->store_url : options.store_url;
  auto store = OpenStore(url);
  if (!store) {
    std::fprintf(err, "quell dispatch: %s\n", store.error().message.c_str());
    return kConfigError;
  }
  auto* outbox = dynamic_cast<core::OutboxStore*>(store->get());
  if (outbox == nullptr) {
    std::fprintf(err, "quell dispatch: the store at %s cannot dispatch\n", url.c_str());
    return kConfigError;
  }
  // A second connection claims the next batch while one is on the wire.
  auto ahead_store = OpenStore(url);
  if (!ahead_store) {
    std::fprintf(err, "quell dispatch: %s\n", ahead_store.error().message.c_str());
    return kConfigError;
  }
  auto* ahead = dynamic_cast<core::OutboxStore*>(ahead_store->get());
  system::SystemClock clock;
  auto wiring = DispatchWiring::Create(
      *config, *outbox, clock, options.owner.empty() ? DefaultOwner() : options.owner, ahead);
  if (!wiring) {
    std::fprintf(err, "quell dispatch: %s\n", wiring.error().message.c_str());
    return kConfigError;
  }

  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  bool failed = false;
  while (!g_stop.load()) {
    const app::DispatchReport report = (*wiring)->dispatcher().RunOnce();
    for (const std::string& error : report.errors) {
      std::fprintf(err, "quell dispatch: %s\n", error.c_str());
    }
    if (report.claimed > 0) std::fprintf(err, "%s\n", Summary(report).c_str());
    failed = failed || !report.errors.empty() || report.dead > 0;
    const core::WallTime now = clock.Now();
    const bool more_now = report.next_due && *report.next_due <= now;
    if (more_now) continue;
    if (options.once) break;
    core::Duration wait = config->dispatch.idle_interval;
    if (report.next_due && *report.next_due - now < wait) wait = *report.next_due - now;
    // Short naps so a stop signal is seen promptly.
    for (core::Duration slept{0}; slept < wait && !g_stop.load();
         slept += std::chrono::milliseconds(50)) {
      clock.SleepFor(std::min<core::Duration>(std::chrono::milliseconds(50), wait - slept));
    }
  }
  return options.once && failed ? 1 : 0;
}

}  // namespace quell::cli
