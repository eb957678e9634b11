#pragma once

#include "quell/core/engine/observation.h"
#include "quell/core/result.h"

namespace quell::core {

// The observations of one poll, read once in order; Rewind starts over for a retry.
class ObservationStream {
 public:
  virtual ~ObservationStream() = default;
  // Fills `out` and returns true, or returns false at the end. kInvalidArgument for malformed
  // input, with a message naming where.
  virtual Result<bool> Next(Observation& out) = 0;
  // Starts again from the first observation. kUnavailable when the input cannot be re-read.
  virtual Status Rewind() = 0;
};

}  // namespace quell::core
