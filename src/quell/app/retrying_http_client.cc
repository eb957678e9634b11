#include "quell/app/retrying_http_client.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "quell/core/retry_after.h"

namespace quell::app {
namespace {

// Statuses that say "not now" rather than "not this request". Other 4xx would fail the same
// way again; 501 and 505 are permanent by definition.
bool IsRetryableStatus(int status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

core::Error WithAttempts(core::Error error, uint32_t attempts, RetryStop stop) {
  if (attempts == 1 && stop == RetryStop::kFinal) return error;
  error.message += " (" + std::to_string(attempts) + (attempts == 1 ? " attempt" : " attempts");
  if (stop == RetryStop::kOutOfBudget) error.message += "; retry budget exhausted";
  error.message += ")";
  return error;
}

}  // namespace

RetryingHttpClient::RetryingHttpClient(core::HttpClient& client, core::Clock& clock,
                                       RetryPolicy policy, uint64_t seed)
    : client_(client), clock_(clock), policy_(policy), random_(seed) {}

core::Result<RetriedResponse> RetryingHttpClient::Send(const core::HttpRequest& request,
                                                       RetryBudget& budget) {
  const uint32_t max_attempts = std::max<uint32_t>(policy_.max_attempts, 1);
  for (uint32_t attempts = 1;; ++attempts) {
    core::Result<core::HttpResponse> result = client_.Send(request);
    const bool retryable =
        result.ok() ? IsRetryableStatus(result->status) : result.error().IsRetryable();
    RetryStop stop = RetryStop::kFinal;
    if (retryable && attempts >= max_attempts) {
      stop = RetryStop::kOutOfAttempts;
    } else if (retryable) {
      const core::Duration wait = WaitBeforeRetry(result, attempts - 1);
      if (budget.TryConsume(wait)) {
        if (wait > core::Duration::zero()) clock_.SleepFor(wait);
        continue;
      }
      // Waiting less than asked would only meet the same 429 or overload again.
      stop = RetryStop::kOutOfBudget;
    }
    if (!result.ok()) return WithAttempts(result.error(), attempts, stop);
    return RetriedResponse{std::move(result).value(), attempts, stop};
  }
}

core::Duration RetryingHttpClient::WaitBeforeRetry(const core::Result<core::HttpResponse>& last,
                                                   uint32_t retry_index) {
  if (last.ok() && last->status == 429) {
    const std::optional<core::Duration> asked =
        core::ParseRetryAfter(core::FindHeader(last->headers, "Retry-After"), clock_.Now());
    if (asked) return std::min(*asked, policy_.max_retry_after);
  }
  return BackoffDelay(policy_, retry_index, NextRandom());
}

uint64_t RetryingHttpClient::NextRandom() {
  const std::lock_guard<std::mutex> lock(random_mutex_);
  return random_();
}

}  // namespace quell::app
