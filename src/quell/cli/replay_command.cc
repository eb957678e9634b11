#include "quell/cli/replay_command.h"

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/jsonl/fd_observation_stream.h"
#include "quell/adapters/jsonl/message_lines.h"
#include "quell/adapters/wiring/message_replay_wiring.h"

namespace quell::cli {

int RunReplay(const ReplayOptions& options, core::Clock& clock, int in_fd, std::FILE* out,
              std::FILE* err) {
  // replay keeps no state past its input, but a line from the future would still make the
  // key's later lines stale; "now" is read once, here.
  const core::WallTime now = clock.Now();
  return jsonl::ReplayLines(options, now, in_fd, out, err);
}

int RunMessageReplay(const std::string& config_path, bool skip_invalid, core::Clock& clock,
                     int in_fd, std::FILE* out, std::FILE* err) {
  auto config = config::LoadConfigForReplay(config_path, config::ProcessEnv());
  if (!config) {
    std::fprintf(err, "quell replay: %s\n", config.error().message.c_str());
    return 2;
  }
  const core::WallTime now = clock.Now();
  jsonl::FdObservationStream input(
      in_fd, skip_invalid,
      jsonl::ObservationParserOptions{.limits = config->limits, .now = now, .redact = {}}, err);
  jsonl::MessageLineWriter writer(out);
  const core::Status replayed = wiring::RunMessageReplay(*config, input, writer);
  std::fflush(out);
  if (!replayed) {
    std::fprintf(err, "quell replay: %s\n", replayed.error().message.c_str());
    if (replayed.error().code == core::ErrorCode::kInvalidArgument && input.invalid() == 0) {
      std::fprintf(err, "quell replay: stopped there; the messages above it stand\n");
    }
    return 1;
  }
  if (!writer.ok()) {
    std::fprintf(err, "quell replay: cannot write the messages\n");
    return 1;
  }
  return 0;
}

}  // namespace quell::cli
