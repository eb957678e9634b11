#include "quell/app/retrying_http_client.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "quell/core/delivery/retry_after.h"
#include "quell/core/redact/redact_url.h"

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
  if (stop == RetryStop::kOutOfTime) error.message += "; the poll deadline for this source passed";
  error.message += ")";
  return error;
}

}  // namespace

RetryingHttpClient::RetryingHttpClient(core::HttpClient& client, core::Clock& clock,
                                       RetryPolicy policy, uint64_t seed)
    : client_(client), clock_(clock), policy_(policy), random_(seed) {}

core::Result<RetriedResponse> RetryingHttpClient::Send(const core::HttpRequest& request,
                                                       RetryBudget& budget,
                                                       std::optional<core::MonoTime> deadline) {
  const uint32_t max_attempts = std::max<uint32_t>(policy_.max_attempts, 1);
  std::optional<core::HttpRequest> cut;  // the request with its timeouts cut to the deadline
  if (deadline) cut = request;
  for (uint32_t attempts = 1;; ++attempts) {
    if (deadline) {
      const core::Duration left = *deadline - clock_.Monotonic();
      if (left <= core::Duration::zero()) {
        return core::MakeError(
            core::ErrorCode::kTimeout,
            request.method + " " +
                (request.label_url.empty() ? core::RedactUrl(request.url) : request.label_url) +
                ": not sent: the poll deadline for this source passed");
      }
      cut->connect_timeout = std::min(request.connect_timeout, left);
      cut->total_timeout = std::min(request.total_timeout, left);
    }
    core::Result<core::HttpResponse> result = client_.Send(deadline ? *cut : request);
    const bool retryable =
        result.ok() ? IsRetryableStatus(result->status) : result.error().IsRetryable();
    RetryStop stop = RetryStop::kFinal;
    if (retryable && deadline && clock_.Monotonic() >= *deadline) {
      stop = RetryStop::kOutOfTime;  // the attempt ran into the deadline, and was cut by it
    } else if (retryable && attempts >= max_attempts) {
      stop = RetryStop::kOutOfAttempts;
    } else if (retryable) {
      const core::Duration wait = WaitBeforeRetry(result, attempts - 1);
      if (deadline && clock_.Monotonic() + wait >= *deadline) {
        stop = RetryStop::kOutOfTime;
      } else if (!budget.TryConsume(wait)) {
        // Waiting less than asked would only meet the same 429 or overload again.
        stop = RetryStop::kOutOfBudget;
      } else {
        if (wait > core::Duration::zero()) clock_.SleepFor(wait);
        continue;
      }
    }
    if (!result.ok()) return WithAttempts(result.error(), attempts, stop);
    return RetriedResponse{std::move(result).value(), attempts, stop};
  }
}

core::Duration RetryingHttpClient::WaitBeforeRetry(const core::Result<core::HttpResponse>& last,
                                                   uint32_t retry_index) {
  if (last.ok() && last->status == 429) {
    std::optional<core::Duration> asked =
        core::ParseRetryAfter(core::FindHeader(last->headers, "Retry-After"), clock_.Now());
    // Datadog's API says when its rate-limit window resets instead: X-RateLimit-Reset, in
    // seconds, the same form as a delay-seconds Retry-After.
    if (!asked) {
      asked =
          core::ParseRetryAfter(core::FindHeader(last->headers, "X-RateLimit-Reset"), clock_.Now());
    }
    if (asked) return std::min(*asked, policy_.max_retry_after);
  }
  return BackoffDelay(policy_, retry_index, NextRandom());
}

uint64_t RetryingHttpClient::NextRandom() {
  const std::lock_guard<std::mutex> lock(random_mutex_);
  return random_();
}

}  // namespace quell::app
