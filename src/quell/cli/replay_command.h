#pragma once

#include <cstdio>

#include "quell/adapters/jsonl/replay_lines.h"
#include "quell/core/ports/clock.h"

namespace quell::cli {

using ReplayOptions = jsonl::ReplayOptions;

// `quell replay` (see jsonl::ReplayLines) at `clock`'s now.
int RunReplay(const ReplayOptions& options, core::Clock& clock, int in_fd, std::FILE* out,
              std::FILE* err);

}  // namespace quell::cli
