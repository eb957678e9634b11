#include "quell/adapters/wiring/sentry_sources.h"

#include <string>
#include <utility>

namespace quell::wiring {

std::string SentryTokenProblem(const config::Config& config) {
  if (config.sentry_conditions.empty() || !config.sentry.token.empty()) return {};
  if (!config.sentry.token_unresolved.empty()) return config.sentry.token_unresolved;
  return config.path + ": sentry: no token in the " + config.sentry.token_origin +
         "; set sentry.token_env or sentry.token_file";
}

core::Result<std::unique_ptr<SentrySources>> SentrySources::Create(const config::Config& config,
                                                                   core::HttpClient& http,
                                                                   core::Clock& clock,
                                                                   uint64_t jitter_seed) {
  std::unique_ptr<SentrySources> s(new SentrySources());
  if (config.sentry_conditions.empty()) return s;
  if (std::string problem = SentryTokenProblem(config); !problem.empty()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument, problem);
  }
  const config::SentrySettings& settings = config.sentry;
  app::RetryPolicy policy;
  policy.max_attempts = settings.http.retry.max_attempts;
  policy.initial_backoff = settings.http.retry.initial_backoff;
  policy.max_backoff = settings.http.retry.max_backoff;
  policy.max_retry_after = settings.http.retry.max_retry_after;
  s->retrying_ = std::make_unique<app::RetryingHttpClient>(http, clock, policy, jitter_seed);
  s->budgeted_ =
      std::make_unique<app::BudgetedHttpClient>(*s->retrying_, settings.http.retry.budget);
  sentry::SentryOptions options;
  options.base_url = settings.base_url;
  options.org = settings.org;
  options.token = settings.token;
  options.connect_timeout = settings.http.connect_timeout;
  options.timeout = settings.http.timeout;
  s->client_ = std::make_unique<sentry::SentryClient>(std::move(options), *s->budgeted_);
  s->conditions_ = config.sentry_conditions;
  for (const config::SentryConditionConfig& entry : config.sentry_conditions) {
    sentry::IssueQuery query;
    query.project = entry.project;
    query.query = entry.query;
    query.max_pages = settings.max_pages;
    query.max_enrich = settings.max_enrich;
    query.needs_tags = !entry.condition.filter.tags.empty();
    for (const std::string& field : entry.condition.key.Fields()) {
      if (field.starts_with("tags.")) query.needs_tags = true;
    }
    s->sources_.push_back(std::make_unique<sentry::SentryIssueSource>(*s->client_, query));
  }
  return s;
}

void SentrySources::WatchAll(app::Poller& poller, core::Duration poll_deadline) {
  if (!budgeted_) return;
  poller.RenewEachCycle(*budgeted_, poll_deadline);
  for (size_t i = 0; i < conditions_.size(); ++i) {
    poller.Watch(conditions_[i].condition, *sources_[i], std::string(kSentrySource));
  }
}

}  // namespace quell::wiring
