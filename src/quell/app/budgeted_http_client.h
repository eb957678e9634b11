#pragma once

#include <memory>
#include <string_view>

#include "quell/app/retry_budget.h"
#include "quell/app/retrying_http_client.h"
#include "quell/core/ports/http_client.h"

namespace quell::app {

// A pseudo-header BudgetedHttpClient adds to a response it gave up retrying (never sent on
// the wire), so the adapter that reads the response can say why the poll failed.
inline constexpr std::string_view kRetryNoteHeader = "X-Quell-Retry-Note";

// A core::HttpClient that retries through RetryingHttpClient, every wait drawn from one
// budget per poll. Adapters that take a plain HttpClient (Prometheus, Infrai) get retries and
// the poll-wide budget without knowing about either. StartPoll is not thread-safe with Send;
// Send is thread-safe.
class BudgetedHttpClient : public core::HttpClient {
 public:
  BudgetedHttpClient(RetryingHttpClient& retrying, core::Duration budget_per_poll);

  // A fresh budget for the poll about to start.
  void StartPoll();

  core::Result<core::HttpResponse> Send(const core::HttpRequest& request) override;

 private:
  RetryingHttpClient& retrying_;
  core::Duration budget_per_poll_;
  std::unique_ptr<RetryBudget> budget_;
};

}  // namespace quell::app
