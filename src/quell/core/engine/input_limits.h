#pragma once

#include <chrono>
#include <cstddef>

#include "quell/core/text/time.h"

namespace quell::core {

// Bounds on an observation that comes from outside (apply and replay lines, sources), so one
// hostile or broken producer cannot store a 10 MB key or payload, or date a line in the far
// future: the engine drops observations older than a key's last one as stale, so a line dated
// 9999-12-31 would make every later real observation of its key stale for good.
struct InputLimits {
  size_t max_key_bytes = 512;
  size_t max_evidence_bytes = size_t{16} * 1024;  // evidence as minified JSON, before redaction
  size_t max_evidence_depth = 16;  // nesting of objects and arrays, the evidence object = 1
  Duration max_future_skew = std::chrono::minutes(5);  // how far `at` may run ahead of now
};

}  // namespace quell::core
