#include "quell/cli/replay_command.h"

#include <optional>
#include <string>
#include <string_view>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/jsonl/fd_observation_stream.h"
#include "quell/adapters/jsonl/message_lines.h"
#include "quell/adapters/wiring/message_replay_wiring.h"
#include "quell/core/text/time.h"

namespace quell::cli {

int RunReplay(const ReplayOptions& options, int in_fd, std::FILE* out, std::FILE* err) {
  return jsonl::ReplayLines(options, in_fd, out, err);
}

int RunMessageReplay(const MessageReplayOptions& options, int in_fd, std::FILE* out,
                     std::FILE* err) {
  std::optional<core::WallTime> until;
  if (!options.until.empty()) {
    auto parsed = core::ParseRfc3339(options.until);
    if (!parsed) {
      std::fprintf(err, "quell replay: --until: %s\n", parsed.error().message.c_str());
      return 2;
    }
    until = *parsed;
  }
  auto config = config::LoadConfigForReplay(options.config_path, config::ProcessEnv());
  if (!config) {
    std::fprintf(err, "quell replay: %s\n", config.error().message.c_str());
    return 2;
  }
  std::string store_path;
  if (!options.store_url.empty()) {
    constexpr std::string_view kSqlite = "sqlite:";
    if (!options.store_url.starts_with(kSqlite) || options.store_url.size() == kSqlite.size()) {
      std::fprintf(err, "quell replay: --store: wants sqlite:PATH (a new file), got \"%s\"\n",
                   options.store_url.c_str());
      return 2;
    }
    store_path = options.store_url.substr(kSqlite.size());
    if (auto claimed = wiring::ClaimNewStoreFile(store_path); !claimed) {
      std::fprintf(err, "quell replay: %s\n", claimed.error().message.c_str());
      return 2;
    }
  }
  // The trace is the replay's clock, so no line is too far ahead of this machine's.
  jsonl::FdObservationStream input(
      in_fd, options.skip_invalid,
      jsonl::ObservationParserOptions{.limits = config->limits, .now = std::nullopt, .redact = {}},
      err);
  jsonl::MessageLineWriter writer(out);
  const auto replayed = wiring::RunMessageReplay(*config, input, writer, until, store_path);
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
  if (*replayed) {
    const std::string next = core::FormatRfc3339(**replayed);
    std::fprintf(err,
                 "quell replay: more messages fall due after the replay's end, the first at "
                 "%s; --until %s (or later) prints them\n",
                 next.c_str(), next.c_str());
  }
  return 0;
}

}  // namespace quell::cli
