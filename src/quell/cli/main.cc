// The quell executable: the only place that wires concrete adapters together.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "quell/cli/policy_flags.h"
#include "quell/cli/replay_command.h"
#include "quell/cli/version.h"

namespace {

constexpr int kUsageError = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "quell keeps one incident per stable dedupe key and stays quiet until it meaningfully "
      "changes:\nit notifies on open, renotifies only after the cooldown, and resolves after a "
      "streak of healthy polls.",
      "quell"};
  app.set_version_flag("--version", std::string("quell ") + quell::cli::kVersion);
  app.require_subcommand(1);

  quell::cli::ReplayOptions replay;
  quell::cli::PolicyFlags replay_policy;
  CLI::App* replay_cmd = app.add_subcommand(
      "replay",
      "Decide observation JSON Lines from stdin in memory; print one decision line per "
      "observation");
  replay_policy.AddTo(*replay_cmd);
  replay_cmd->add_flag("--skip-invalid", replay.skip_invalid,
                       "Report and count malformed lines instead of stopping at the first");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (replay_cmd->parsed()) {
    auto policy = replay_policy.Resolve();
    if (!policy) {
      std::fprintf(stderr, "quell replay: %s\n", policy.error().message.c_str());
      return kUsageError;
    }
    replay.policy = *policy;
    return quell::cli::RunReplay(replay, STDIN_FILENO, stdout, stderr);
  }
  return kUsageError;
}
