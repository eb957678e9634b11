#include "quell/adapters/wiring/upstream_wiring.h"

#include <memory>
#include <random>
#include <utility>

namespace quell::wiring {

core::Result<std::unique_ptr<UpstreamWiring>> UpstreamWiring::Create(const config::Config& config,
                                                                     core::Clock& clock) {
  std::unique_ptr<UpstreamWiring> w(new UpstreamWiring());
  if (config.error_conditions.empty()) return w;
  const config::InfraiSettings& settings = config.infrai;
  if (settings.api_key.empty()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           config.path + ": infrai: no API key in the " + settings.api_key_origin +
                               "; --upstream needs it to resolve error groups at Infrai");
  }
  app::RetryPolicy policy;
  policy.max_attempts = settings.http.retry.max_attempts;
  policy.initial_backoff = settings.http.retry.initial_backoff;
  policy.max_backoff = settings.http.retry.max_backoff;
  policy.max_retry_after = settings.http.retry.max_retry_after;
  std::random_device entropy;  // jitter only
  w->retrying_ = std::make_unique<app::RetryingHttpClient>(w->http_, clock, policy, entropy());
  infrai::InfraiOptions options;
  options.base_url = settings.base_url;
  options.api_key = settings.api_key;
  options.connect_timeout = settings.http.connect_timeout;
  options.timeout = settings.http.timeout;
  w->budgeted_ =
      std::make_unique<app::BudgetedHttpClient>(*w->retrying_, settings.http.retry.budget);
  w->client_ = std::make_unique<infrai::InfraiClient>(std::move(options), *w->budgeted_);
  w->resolver_ = std::make_unique<infrai::InfraiGroupResolver>(*w->client_);
  for (const auto& condition : config.error_conditions) {
    w->conditions_.insert(condition.common.name);
  }
  return w;
}

app::UpstreamLookup UpstreamWiring::Lookup() {
  return [this](std::string_view condition) -> std::shared_ptr<core::GroupResolver> {
    if (!conditions_.contains(condition)) return nullptr;
    budgeted_->StartPoll();
    // Owned here, not by the pointer: the lookup must not outlive this object.
    return {std::shared_ptr<void>(), resolver_.get()};
  };
}

}  // namespace quell::wiring
