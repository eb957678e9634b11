#pragma once

#include <cstdio>

#include "quell/core/input_limits.h"
#include "quell/core/policy.h"
#include "quell/core/ports/clock.h"

namespace quell::cli {

struct ReplayOptions {
  core::Policy policy;
  bool skip_invalid = false;  // report and count malformed lines instead of stopping
  core::InputLimits limits;   // the defaults: replay reads no config
};

// Reads observation JSON Lines from `in_fd` and writes one decision line per observation to
// `out`, in order. Returns the process exit code: 0, or 1 when input was malformed (the message
// on `err` names the line and the problem; every decision before it has been written).
int RunReplay(const ReplayOptions& options, core::Clock& clock, int in_fd, std::FILE* out,
              std::FILE* err);

}  // namespace quell::cli
