#include "quell/app/budgeted_http_client.h"

#include <string>
#include <utility>

namespace quell::app {

BudgetedHttpClient::BudgetedHttpClient(RetryingHttpClient& retrying, core::Duration budget_per_poll)
    : retrying_(retrying),
      budget_per_poll_(budget_per_poll),
      budget_(std::make_unique<RetryBudget>(budget_per_poll)) {}

void BudgetedHttpClient::StartPoll(std::optional<core::Duration> deadline) {
  budget_ = std::make_unique<RetryBudget>(budget_per_poll_);
  const std::lock_guard<std::mutex> lock(deadline_mutex_);
  poll_deadline_ = deadline;
  deadline_.reset();
}

void BudgetedHttpClient::Postpone(core::Duration by) {
  const std::lock_guard<std::mutex> lock(deadline_mutex_);
  if (deadline_) *deadline_ += by;
}

core::Result<core::HttpResponse> BudgetedHttpClient::Send(const core::HttpRequest& request) {
  std::optional<core::MonoTime> deadline;
  {
    // From the first request: a source polled after another that hung keeps its own time.
    const std::lock_guard<std::mutex> lock(deadline_mutex_);
    if (poll_deadline_ && !deadline_) deadline_ = retrying_.clock().Monotonic() + *poll_deadline_;
    deadline = deadline_;
  }
  auto sent = retrying_.Send(request, *budget_, deadline);
  if (!sent) return sent.error();
  core::HttpResponse response = std::move(sent->response);
  if (sent->stop == RetryStop::kOutOfAttempts) {
    response.retry_note = "still failing after " + std::to_string(sent->attempts) + " attempts";
  } else if (sent->stop == RetryStop::kOutOfBudget) {
    response.retry_note = "gave up after " + std::to_string(sent->attempts) +
                          " attempts: the poll's retry budget of " +
                          core::FormatDuration(budget_per_poll_) + " is spent";
  } else if (sent->stop == RetryStop::kOutOfTime) {
    response.retry_note = "gave up after " + std::to_string(sent->attempts) +
                          " attempts: the poll deadline for this source passed";
  }
  return response;
}

}  // namespace quell::app
