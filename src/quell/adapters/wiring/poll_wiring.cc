#include "quell/adapters/wiring/poll_wiring.h"

#include <algorithm>
#include <random>
#include <utility>

#include "quell/adapters/infrai/field_drift.h"
#include "quell/adapters/wiring/poll_lease_map.h"
#include "quell/adapters/wiring/poller_options_for.h"
#include "quell/adapters/wiring/source_health_targets.h"

namespace quell::wiring {
namespace {

app::RetryPolicy ToPolicy(const config::RetrySettings& retry) {
  app::RetryPolicy policy;
  policy.max_attempts = retry.max_attempts;
  policy.initial_backoff = retry.initial_backoff;
  policy.max_backoff = retry.max_backoff;
  policy.max_retry_after = retry.max_retry_after;
  return policy;
}

// Group fields the key templates name beyond the canonical ones, so the listing parser copies
// exactly those and no more.
std::vector<std::string> ExtraGroupFields(const config::Config& config) {
  static const std::vector<std::string> kCanonical = {"error_group_id", "id",    "title",
                                                      "message",        "level", "status"};
  std::vector<std::string> extra;
  for (const auto& condition : config.error_conditions) {
    for (const std::string& field : condition.key.Fields()) {
      if (field.starts_with("tags.") ||
          std::find(kCanonical.begin(), kCanonical.end(), field) != kCanonical.end() ||
          std::find(extra.begin(), extra.end(), field) != extra.end()) {
        continue;
      }
      extra.push_back(field);
    }
  }
  return extra;
}

bool UsesInfrai(const config::Config& config) {
  return !config.error_conditions.empty() ||
         std::any_of(config.metric_conditions.begin(), config.metric_conditions.end(),
                     [](const auto& m) { return m.source == config::MetricSourceKind::kInfrai; });
}

bool UsesPrometheus(const config::Config& config) {
  return std::any_of(
      config.metric_conditions.begin(), config.metric_conditions.end(),
      [](const auto& m) { return m.source == config::MetricSourceKind::kPrometheus; });
}

}  // namespace

core::Duration SourcePollDeadline(const config::Config& config, const config::HttpSettings& http) {
  if (http.poll_deadline) return *http.poll_deadline;
  core::Duration longest = core::Duration::zero();
  for (const auto& c : config.error_conditions) longest = std::max(longest, c.common.interval);
  for (const auto& m : config.metric_conditions) {
    longest = std::max(longest, m.condition.common.interval);
  }
  for (const auto& c : config.push_conditions) longest = std::max(longest, c.common.interval);
  for (const auto& s : config.sentry_conditions) {
    longest = std::max(longest, s.condition.common.interval);
  }
  for (const auto& d : config.datadog_conditions) {
    longest = std::max(longest, d.condition.common.interval);
  }
  return longest;
}

core::Duration CyclePollDeadline(const config::Config& config) {
  core::Duration total = core::Duration::zero();
  if (UsesInfrai(config)) total += SourcePollDeadline(config, config.infrai.http);
  if (UsesPrometheus(config)) total += SourcePollDeadline(config, config.prometheus.http);
  if (!config.sentry_conditions.empty()) total += SourcePollDeadline(config, config.sentry.http);
  if (!config.datadog_conditions.empty()) {
    total += SourcePollDeadline(config, config.datadog.http);
  }
  return total;
}

core::Result<std::unique_ptr<PollWiring>> PollWiring::Create(const config::Config& config,
                                                             core::IncidentStore& store,
                                                             core::Clock& clock,
                                                             core::OperatorStore* operators,
                                                             const config::Config* whole) {
  std::unique_ptr<PollWiring> w(new PollWiring());
  w->config_ = config;
  const bool uses_infrai = UsesInfrai(config);
  const bool uses_prometheus = UsesPrometheus(config);
  std::random_device entropy;  // jitter only: decorrelates workers, needs no strength

  if (uses_infrai) {
    const config::InfraiSettings& settings = config.infrai;
    if (settings.api_key.empty()) {
      return core::MakeError(core::ErrorCode::kInvalidArgument,
                             config.path + ": infrai: no API key in the " +
                                 settings.api_key_origin +
                                 "; set it, or name a key file in infrai.api_key_file");
    }
    w->infrai_retrying_ = std::make_unique<app::RetryingHttpClient>(
        w->http_, clock, ToPolicy(settings.http.retry), entropy());
    w->infrai_http_ =
        std::make_unique<app::BudgetedHttpClient>(*w->infrai_retrying_, settings.http.retry.budget);
    infrai::InfraiOptions options;
    options.base_url = settings.base_url;
    options.api_key = settings.api_key;
    options.connect_timeout = settings.http.connect_timeout;
    options.timeout = settings.http.timeout;
    options.page_size = settings.page_size;
    options.max_pages = settings.max_pages;
    options.groups_path = settings.groups_path;
    options.fields = settings.fields;
    options.extra_fields = ExtraGroupFields(config);
    options.fields_read = infrai::FieldsRead(config.error_conditions);
    w->infrai_client_ =
        std::make_unique<infrai::InfraiClient>(std::move(options), *w->infrai_http_);
    w->infrai_errors_ = std::make_unique<infrai::InfraiErrorSource>(*w->infrai_client_);
    w->infrai_metrics_ = std::make_unique<infrai::InfraiMetricSource>(*w->infrai_client_);
  }
  if (uses_prometheus) {
    const config::PrometheusSettings& settings = config.prometheus;
    w->prometheus_retrying_ = std::make_unique<app::RetryingHttpClient>(
        w->http_, clock, ToPolicy(settings.http.retry), entropy());
    w->prometheus_http_ = std::make_unique<app::BudgetedHttpClient>(*w->prometheus_retrying_,
                                                                    settings.http.retry.budget);
    prometheus::PrometheusOptions options;
    options.base_url = settings.url;
    options.connect_timeout = settings.http.connect_timeout;
    options.total_timeout = settings.http.timeout;
    w->prometheus_ =
        std::make_unique<prometheus::PrometheusSource>(*w->prometheus_http_, std::move(options));
  }

  if (!config.sentry_conditions.empty()) {
    auto sentry = SentrySources::Create(config, w->http_, clock, entropy());
    if (!sentry) return sentry.error();
    w->sentry_ = std::move(*sentry);
  }
  if (!config.datadog_conditions.empty()) {
    const config::DatadogSettings& settings = config.datadog;
    if (!settings.keys_unresolved.empty()) {
      return core::MakeError(core::ErrorCode::kInvalidArgument, settings.keys_unresolved);
    }
    w->datadog_retrying_ = std::make_unique<app::RetryingHttpClient>(
        w->http_, clock, ToPolicy(settings.http.retry), entropy());
    w->datadog_http_ = std::make_unique<app::BudgetedHttpClient>(*w->datadog_retrying_,
                                                                 settings.http.retry.budget);
    datadog::DatadogOptions options;
    options.api_url = settings.api_url;
    options.app_url = settings.app_url;
    options.api_key = settings.api_key;
    options.app_key = settings.app_key;
    options.page_size = settings.page_size;
    options.max_pages = settings.max_pages;
    options.connect_timeout = settings.http.connect_timeout;
    options.total_timeout = settings.http.timeout;
    w->datadog_ =
        std::make_unique<datadog::DatadogMonitorSource>(*w->datadog_http_, std::move(options));
  }

  app::PollerOptions options = PollerOptionsFor(config, operators);
  options.source_health = SourceHealthTargets(whole != nullptr ? *whole : config);
  w->poller_ = std::make_unique<app::Poller>(store, w->encoder_, clock, std::move(options));
  if (w->infrai_http_) {
    w->poller_->RenewEachCycle(*w->infrai_http_, SourcePollDeadline(config, config.infrai.http));
  }
  if (w->prometheus_http_) {
    w->poller_->RenewEachCycle(*w->prometheus_http_,
                               SourcePollDeadline(config, config.prometheus.http));
  }
  for (const auto& condition : config.error_conditions) {
    w->poller_->Watch(condition, *w->infrai_errors_, std::string(kInfraiErrorsSource));
  }
  for (const auto& entry : config.metric_conditions) {
    if (entry.source == config::MetricSourceKind::kInfrai) {
      w->poller_->Watch(entry.condition, *w->infrai_metrics_, std::string(kInfraiMetricsSource));
    } else {
      w->poller_->Watch(entry.condition, *w->prometheus_, std::string(kPrometheusSource));
    }
  }
  if (w->datadog_http_) {
    w->poller_->RenewEachCycle(*w->datadog_http_, SourcePollDeadline(config, config.datadog.http));
  }
  for (const auto& entry : config.datadog_conditions) {
    w->poller_->Watch(entry.condition, *w->datadog_, std::string(kDatadogSource));
  }
  for (const auto& condition : config.push_conditions) w->poller_->Watch(condition);
  if (w->sentry_) w->sentry_->WatchAll(*w->poller_, SourcePollDeadline(config, config.sentry.http));
  return w;
}

app::CycleReport PollWiring::RunCycle(app::DecisionSink& sink, const app::HeldLeases* held) {
  return poller_->RunOnce(sink, held);
}

infrai::ContractNeeds PollWiring::Needs() const {
  infrai::ContractNeeds needs;
  for (const auto& condition : config_.error_conditions) {
    const std::string& name = condition.common.name;
    needs.routes.push_back({name, "GET", config_.infrai.groups_path});
    if (config_.infrai.max_enrich > 0) {
      needs.routes.push_back({name, "GET", "/v1/errors/group_detail/{error_group_id}"});
    }
    needs.group_fields.push_back({name, condition.key.Fields()});
  }
  for (const auto& entry : config_.metric_conditions) {
    if (entry.source != config::MetricSourceKind::kInfrai) continue;
    const core::MetricCondition& condition = entry.condition;
    needs.routes.push_back({condition.common.name, "GET", "/v1/metrics/query"});
    infrai::MetricNeed need{condition.common.name, condition.metric, {}, condition.query.params};
    for (const auto& label : condition.where) need.labels.push_back(label.first);
    if (condition.group_by) {
      need.labels.insert(need.labels.end(), condition.group_by->begin(), condition.group_by->end());
    }
    for (const std::string& field : condition.key.Fields()) {
      if (field != "name" && field != "__name__" &&
          std::find(need.labels.begin(), need.labels.end(), field) == need.labels.end()) {
        need.labels.push_back(field);
      }
    }
    needs.metrics.push_back(std::move(need));
  }
  return needs;
}

}  // namespace quell::wiring
