#pragma once

#include <memory>
#include <mutex>
#include <optional>

#include "quell/app/retry_budget.h"
#include "quell/app/retrying_http_client.h"
#include "quell/core/ports/http_client.h"

namespace quell::app {

// A core::HttpClient that retries through RetryingHttpClient, every wait drawn from one
// budget per poll. Adapters that take a plain HttpClient (Prometheus, Infrai) get retries and
// the poll-wide budget without knowing about either; a response it gave up retrying says why
// in HttpResponse::retry_note. StartPoll is not thread-safe with Send; Send is thread-safe.
class BudgetedHttpClient : public core::HttpClient {
 public:
  BudgetedHttpClient(RetryingHttpClient& retrying, core::Duration budget_per_poll);

  // A fresh budget for the poll about to start, and how long its requests may take in all,
  // counted from the poll's first request (none: each request is bounded by its own timeouts
  // and retries only). Past it a request is not sent and one in flight is cut.
  void StartPoll(std::optional<core::Duration> deadline = std::nullopt);
  // Moves a started poll's deadline `by` later: the time the poller spent on a streamed
  // listing's pages between requests is its own work, not the source's. Thread-safe.
  void Postpone(core::Duration by);

  core::Result<core::HttpResponse> Send(const core::HttpRequest& request) override;

 private:
  RetryingHttpClient& retrying_;
  core::Duration budget_per_poll_;
  std::unique_ptr<RetryBudget> budget_;
  std::optional<core::Duration> poll_deadline_;
  std::mutex deadline_mutex_;
  std::optional<core::MonoTime> deadline_;  // set by the poll's first Send; guarded
};

}  // namespace quell::app
