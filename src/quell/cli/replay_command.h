#pragma once

#include <cstdio>

#include "quell/adapters/jsonl/replay_lines.h"

namespace quell::cli {

using ReplayOptions = jsonl::ReplayOptions;

// `quell replay` (see jsonl::ReplayLines) at the wall clock's now.
int RunReplay(const ReplayOptions& options, int in_fd, std::FILE* out, std::FILE* err);

}  // namespace quell::cli
