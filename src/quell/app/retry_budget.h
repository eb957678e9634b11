#pragma once

#include <atomic>

#include "quell/core/text/time.h"

namespace quell::app {

// The total time one poll may spend waiting between retries, shared by all of its requests:
// per-request attempt limits alone would let a poll of many requests against a struggling
// server wait for minutes. Thread-safe.
class RetryBudget {
 public:
  explicit RetryBudget(core::Duration total);

  // Takes `wait` out of the budget and returns true, or returns false and takes nothing when
  // less than `wait` is left. A zero wait always fits.
  bool TryConsume(core::Duration wait);
  core::Duration remaining() const;

 private:
  std::atomic<core::Duration::rep> remaining_us_;
};

}  // namespace quell::app
