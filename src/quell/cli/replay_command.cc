#include "quell/cli/replay_command.h"

namespace quell::cli {

int RunReplay(const ReplayOptions& options, core::Clock& clock, int in_fd, std::FILE* out,
              std::FILE* err) {
  // replay keeps no state past its input, but a line from the future would still make the
  // key's later lines stale; "now" is read once, here.
  const core::WallTime now = clock.Now();
  return jsonl::ReplayLines(options, now, in_fd, out, err);
}

}  // namespace quell::cli
