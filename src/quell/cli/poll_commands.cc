#include "quell/cli/poll_commands.h"

#include <memory>
#include <optional>
#include <string>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/jsonl/decision_line.h"
#include "quell/adapters/jsonl/decision_sinks.h"
#include "quell/adapters/prometheus/query_check.h"
#include "quell/adapters/text_output/cycle_summary.h"
#include "quell/adapters/wiring/command_store.h"
#include "quell/adapters/wiring/poll_wiring.h"
#include "quell/adapters/wiring/schema_check.h"

namespace quell::cli {
namespace {

constexpr int kConfigError = 2;

struct Loaded {
  config::Config config;
  std::optional<core::Store> store;
  core::Clock* clock = nullptr;
  std::unique_ptr<wiring::PollWiring> wiring;
};

// Loads the config, opens the store and wires the sources; prints why and returns null when
// any of that fails.
std::unique_ptr<Loaded> Load(const PollCommandOptions& options, core::Clock& clock,
                             const char* command, std::FILE* err) {
  auto config = config::LoadConfig(options.config_path, config::ProcessEnv());
  if (!config) {
    std::fprintf(err, "quell %s: %s\n", command, config.error().message.c_str());
    return nullptr;
  }
  auto loaded = std::make_unique<Loaded>();
  loaded->clock = &clock;
  loaded->config = std::move(*config);
  auto store = wiring::OpenCommandStore({.store_flag = options.store_url,
                                         .config_path = options.config_path,
                                         .config = &loaded->config});
  if (!store) {
    std::fprintf(err, "quell %s: %s\n", command, store.error().message.c_str());
    return nullptr;
  }
  loaded->store.emplace(std::move(store->store));
  auto wiring =
      wiring::PollWiring::Create(loaded->config, loaded->store->incidents(), *loaded->clock);
  if (!wiring) {
    std::fprintf(err, "quell %s: %s\n", command, wiring.error().message.c_str());
    return nullptr;
  }
  loaded->wiring = std::move(*wiring);
  return loaded;
}

}  // namespace

int RunPollOnce(const PollCommandOptions& options, core::Clock& clock, std::FILE* out,
                std::FILE* err) {
  auto loaded = Load(options, clock, "poll-once", err);
  if (!loaded) return kConfigError;
  jsonl::PrintingDecisionSink sink(out);
  const app::CycleReport report = loaded->wiring->RunCycle(sink);
  std::fflush(out);
  for (const app::ConditionOutcome& condition : report.conditions) {
    std::fprintf(err, "%s\n", text_output::ConditionSummary(condition).c_str());
  }
  return report.ok() ? 0 : 1;
}

int RunSchemaCheck(const PollCommandOptions& options, core::Clock& clock, std::FILE* out,
                   std::FILE* err) {
  auto loaded = Load(options, clock, "schema check", err);
  if (!loaded) return kConfigError;
  const size_t problems = wiring::CheckSchema(*loaded->wiring, loaded->config, out);
  return problems == 0 ? 0 : 1;
}

}  // namespace quell::cli
