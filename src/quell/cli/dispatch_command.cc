#include "quell/cli/dispatch_command.h"

#include <string>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/system/lease_owner.h"
#include "quell/adapters/system/signal_thread.h"
#include "quell/adapters/wiring/command_store.h"
#include "quell/adapters/wiring/dispatch_wiring.h"
#include "quell/app/dispatch_loop.h"
#include "quell/app/run_control.h"

namespace quell::cli {
namespace {

constexpr int kConfigError = 2;

}  // namespace

int RunDispatch(const DispatchCommandOptions& options, core::Clock& clock, std::FILE* err) {
  app::RunControl control;
  const system::SignalThread signals(control);
  auto config = config::LoadConfig(options.config_path, config::ProcessEnv());
  if (!config) {
    std::fprintf(err, "quell dispatch: %s\n", config.error().message.c_str());
    return kConfigError;
  }
  for (const std::string& warning : config->warnings) {
    std::fprintf(err, "quell dispatch: warning: %s\n", warning.c_str());
  }
  if (config->channels.empty()) {
    std::fprintf(err, "quell dispatch: %s: no channels are configured: nothing can be sent\n",
                 options.config_path.c_str());
    return kConfigError;
  }
  auto store = wiring::OpenCommandStore(
      {.store_flag = options.store_url, .config_path = options.config_path, .config = &*config});
  if (!store) {
    std::fprintf(err, "quell dispatch: %s\n", store.error().message.c_str());
    return kConfigError;
  }
  auto wiring = wiring::DispatchWiring::Create(
      *config, store->store.outbox(), clock,
      options.owner.empty() ? system::DefaultLeaseOwner() : options.owner, store->url);
  if (!wiring) {
    std::fprintf(err, "quell dispatch: %s\n", wiring.error().message.c_str());
    return kConfigError;
  }

  const bool failed = app::RunDispatchRounds(
      [&] { return (*wiring)->dispatcher().RunOnce(); }, config->dispatch.idle_interval, clock,
      control, options.once,
      [err](const std::string& line, bool summary) {
        std::fprintf(err, "%s%s\n", summary ? "" : "quell dispatch: ", line.c_str());
      });
  return options.once && failed ? 1 : 0;
}

}  // namespace quell::cli
