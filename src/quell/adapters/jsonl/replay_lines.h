#pragma once

#include <cstddef>
#include <cstdio>

#include "quell/core/engine/input_limits.h"
#include "quell/core/engine/policy.h"
#include "quell/core/text/time.h"

namespace quell::jsonl {

struct ReplayOptions {
  core::Policy policy;
  bool skip_invalid = false;            // report and count malformed lines instead of stopping
  core::InputLimits limits;             // the defaults: replay reads no config
  size_t read_bytes = size_t{1} << 20;  // read from in_fd at once; small in the fuzzer
};

// `quell replay`: reads observation JSON Lines from `in_fd`, decides them in memory
// (app::MemoryIncidents) and writes one decision line per observation to `out`, in order.
// The input's times are its clock: a trace recorded last year or dated next year replays alike
// (no line is "from the future"). Returns the exit code: 0, or 1 when input was malformed (the
// message on `err` names the line and the problem; every decision before it has been written)
// or a read or write failed.
int ReplayLines(const ReplayOptions& options, int in_fd, std::FILE* out, std::FILE* err);

}  // namespace quell::jsonl
