#pragma once

#include <cstdio>
#include <string>

#include "quell/adapters/jsonl/replay_lines.h"
#include "quell/core/ports/clock.h"

namespace quell::cli {

using ReplayOptions = jsonl::ReplayOptions;

// `quell replay` (see jsonl::ReplayLines) at `clock`'s now.
int RunReplay(const ReplayOptions& options, core::Clock& clock, int in_fd, std::FILE* out,
              std::FILE* err);

// `quell replay -c FILE --messages` (see wiring::RunMessageReplay): one line per message the
// config's channels would have been sent. Returns 0; 1 for malformed input or a store error
// (the messages before it have been printed); 2 for a config that cannot be used.
int RunMessageReplay(const std::string& config_path, bool skip_invalid, core::Clock& clock,
                     int in_fd, std::FILE* out, std::FILE* err);

}  // namespace quell::cli
