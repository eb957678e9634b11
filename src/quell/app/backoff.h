#pragma once

#include <chrono>
#include <cstdint>

#include "quell/core/text/time.h"

namespace quell::app {

// How one request is retried. The defaults suit a poll of a rate-limited API: four attempts
// spread over a few seconds, and a server's Retry-After obeyed for up to a minute.
struct RetryPolicy {
  uint32_t max_attempts = 4;  // attempts in total, the first included; 0 counts as 1
  core::Duration initial_backoff = std::chrono::milliseconds(200);
  core::Duration max_backoff = std::chrono::seconds(10);
  double multiplier = 2.0;
  // A longer Retry-After is cut to this: a server asking for an hour must not stall a poll.
  core::Duration max_retry_after = std::chrono::seconds(60);
};

// The wait before retry number `retry_index` (0 for the first retry), with "full jitter":
// uniform in [0, min(max_backoff, initial_backoff * multiplier^retry_index)], so that clients
// which failed together do not retry together. Pure: the same `random_bits` give the same delay.
core::Duration BackoffDelay(const RetryPolicy& policy, uint32_t retry_index, uint64_t random_bits);

}  // namespace quell::app
