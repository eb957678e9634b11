#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <random>

#include "quell/app/backoff.h"
#include "quell/app/retry_budget.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/http_client.h"
#include "quell/core/result.h"

namespace quell::app {

// Why RetryingHttpClient returned the response it did.
enum class RetryStop {
  kFinal,          // a status that is not retried: a success, a redirect, a 4xx other than 429
  kOutOfAttempts,  // still 429 or 5xx after policy.max_attempts
  kOutOfBudget,    // still 429 or 5xx, and the next wait would not fit in the RetryBudget
  kOutOfTime,      // still failing, and the next attempt would start at or after the deadline
};

struct RetriedResponse {
  core::HttpResponse response;  // the last one received
  uint32_t attempts = 0;        // requests sent, at least 1
  RetryStop stop = RetryStop::kFinal;
};

// Sends a request again after a transient failure: a transport error that IsRetryable, or a
// 429, 500, 502, 503 or 504. A 429 waits for the server's Retry-After (at most
// policy.max_retry_after) when it has a valid one, else for its X-RateLimit-Reset (Datadog's);
// everything else waits BackoffDelay. Every wait is taken from the poll's RetryBudget first and
// spent in Clock::SleepFor. Thread-safe when the wrapped client and clock are.
class RetryingHttpClient {
 public:
  RetryingHttpClient(core::HttpClient& client, core::Clock& clock, RetryPolicy policy,
                     uint64_t seed);

  // A response whenever the last attempt got one, whatever its status: the caller inspects
  // response.status, and `stop` says whether retrying gave up. An Error when the last attempt
  // failed in transport, with that attempt's code; after more than one attempt, or when the
  // policy or budget stopped the retries, the message says so, as in
  // "GET http://127.0.0.1:4100/v1/errors/groups: connection refused (4 attempts)".
  // With a `deadline` (the clock's Monotonic() time), every attempt's timeouts are cut to the time
  // left before it, and no attempt or wait starts at or after it: a source that hangs costs its
  // caller no more than the deadline. A request whose deadline has already passed is not sent
  // (kTimeout).
  core::Result<RetriedResponse> Send(const core::HttpRequest& request, RetryBudget& budget,
                                     std::optional<core::MonoTime> deadline = std::nullopt);

  core::Clock& clock() const { return clock_; }

 private:
  // The wait before retry `retry_index` (0 for the first) after `last`, an error or a status.
  core::Duration WaitBeforeRetry(const core::Result<core::HttpResponse>& last,
                                 uint32_t retry_index);
  uint64_t NextRandom();

  core::HttpClient& client_;
  core::Clock& clock_;
  RetryPolicy policy_;
  std::mutex random_mutex_;
  std::mt19937_64 random_;  // guarded by random_mutex_
};

}  // namespace quell::app
