#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "quell/adapters/config/config.h"
#include "quell/adapters/sentry/sentry_client.h"
#include "quell/adapters/sentry/sentry_issue_source.h"
#include "quell/app/budgeted_http_client.h"
#include "quell/app/poller.h"
#include "quell/app/retrying_http_client.h"
#include "quell/core/ports/clock.h"

namespace quell::wiring {

// The poller's name of the Sentry source (and its lease's, and its own incident's:
// "source:sentry issues"), shared by every sentry_issues condition.
inline constexpr std::string_view kSentrySource = "sentry issues";

// The Sentry side of a poll: one retrying, budgeted client over `http` for the whole `sentry:`
// section and one SentryIssueSource per sentry_issues condition, each watched by `poller`.
class SentrySources {
 public:
  // kInvalidArgument naming the setting when the config has sentry conditions and no token.
  // `http` and `poller` must outlive the result.
  static core::Result<std::unique_ptr<SentrySources>> Create(const config::Config& config,
                                                             core::HttpClient& http,
                                                             core::Clock& clock,
                                                             uint64_t jitter_seed);

  // Watches each condition with its source and renews the client's budget every cycle.
  void WatchAll(app::Poller& poller, core::Duration poll_deadline);

  // In config order, parallel to Config::sentry_conditions.
  const std::vector<std::unique_ptr<sentry::SentryIssueSource>>& sources() const {
    return sources_;
  }

 private:
  SentrySources() = default;

  std::vector<config::SentryConditionConfig> conditions_;
  std::unique_ptr<app::RetryingHttpClient> retrying_;
  std::unique_ptr<app::BudgetedHttpClient> budgeted_;
  std::unique_ptr<sentry::SentryClient> client_;
  std::vector<std::unique_ptr<sentry::SentryIssueSource>> sources_;
};

// The problem with the config's Sentry token, located, or empty: a sentry_issues condition and
// a token_env whose variable is unset (or an unreadable token_file). For `run`, `config check`.
std::string SentryTokenProblem(const config::Config& config);

}  // namespace quell::wiring
