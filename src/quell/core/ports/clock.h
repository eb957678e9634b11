#pragma once

#include "quell/core/time.h"

namespace quell::core {

// Time for the parts outside the pure core. The core never reads a clock; a loop or a retry
// reads Now() once per step and passes the value down. Only adapters/system really sleeps;
// tests pass a fake that advances on SleepFor, so no test waits on the wall.
class Clock {
 public:
  virtual ~Clock() = default;
  // The current wall time. Thread-safe.
  virtual WallTime Now() = 0;
  // Blocks the calling thread for `d` (a fake advances Now() instead). Thread-safe.
  virtual void SleepFor(Duration d) = 0;
};

}  // namespace quell::core
