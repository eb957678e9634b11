#include "quell/adapters/wiring/startup_check.h"

#include <algorithm>
#include <chrono>

#include "quell/adapters/config/store_url_check.h"
#include "quell/adapters/curl/curl_http_client.h"
#include "quell/adapters/prometheus/prometheus_source.h"
#include "quell/adapters/prometheus/query_check.h"
#include "quell/adapters/wiring/dispatch_wiring.h"
#include "quell/adapters/wiring/sentry_sources.h"
#include "quell/core/text/url.h"

namespace quell::wiring {
namespace {

bool UsesInfrai(const config::Config& config) {
  return !config.error_conditions.empty() ||
         std::any_of(config.metric_conditions.begin(), config.metric_conditions.end(),
                     [](const auto& m) { return m.source == config::MetricSourceKind::kInfrai; });
}

// `text` with every occurrence of `secret` replaced, for messages built from a library's.
std::string Without(std::string text, const std::string& secret, const std::string& shown) {
  if (secret.empty() || secret == shown) return text;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
    text.replace(at, secret.size(), shown);
    at += shown.size();
  }
  return text;
}

// Sends each Prometheus condition's query once. A rejected query (Prometheus answers 400 or
// 422 naming the problem) is an error at the query's line; the first failure to reach
// Prometheus stops the checking, since every other query would fail the same way.
void CheckQueries(const config::Config& config, StartupProblems& problems) {
  const config::PrometheusSettings& settings = config.prometheus;
  curl::CurlOptions curl_options;
  curl_options.ca_file = settings.http.ca_file;
  curl::CurlHttpClient http(curl_options);
  prometheus::PrometheusOptions options;
  options.base_url = settings.url;
  // One attempt each, and short: a reload waits for these on the poll thread.
  options.connect_timeout =
      std::min<core::Duration>(settings.http.connect_timeout, std::chrono::seconds(3));
  options.total_timeout = std::min<core::Duration>(settings.http.timeout, std::chrono::seconds(10));
  prometheus::PrometheusSource source(http, options);
  const std::string shown = core::MaskUrlPassword(settings.url);
  for (const config::MetricConditionConfig& entry : config.metric_conditions) {
    if (entry.source != config::MetricSourceKind::kPrometheus) continue;
    if (entry.condition.query.expr.empty()) continue;  // the loader said so already
    const prometheus::QueryCheck check = prometheus::CheckQuery(source, entry.condition.query);
    if (check.verdict == prometheus::QueryVerdict::kAnswered) continue;
    const std::string why = Without(check.message, settings.url, shown);
    if (check.verdict == prometheus::QueryVerdict::kInvalid) {
      std::string message = entry.query_where;
      message.append(": Prometheus at ").append(shown).append(" rejects the query: ").append(why);
      problems.errors.push_back(std::move(message));
      continue;
    }
    std::string message = settings.url_where.empty() ? config.path : settings.url_where;
    message.append(": cannot reach Prometheus at ")
        .append(shown)
        .append(", so the queries were not checked: ")
        .append(why);
    problems.unreachable.push_back(std::move(message));
    return;
  }
}

}  // namespace

StartupProblems CheckStartup(const config::Config& config, const StartupCheckOptions& options,
                             core::Clock& clock) {
  StartupProblems problems;
  if (!options.store_override.empty()) {
    if (core::Status ok = config::CheckStoreUrl(options.store_override); !ok) {
      problems.errors.push_back("--store: " + ok.error().message);
    }
  }
  if (UsesInfrai(config) && config.infrai.api_key.empty()) {
    const std::string& where =
        config.infrai.api_key_where.empty() ? config.path : config.infrai.api_key_where;
    problems.errors.push_back(where + ": no Infrai API key in the " + config.infrai.api_key_origin +
                              "; set it, or name a key file in infrai.api_key_file");
  }
  if (std::string sentry = SentryTokenProblem(config); !sentry.empty()) {
    problems.errors.push_back(std::move(sentry));
  }
  // Without both keys every poll would be refused (403): a datadog condition cannot run.
  if (!config.datadog_conditions.empty() && !config.datadog.keys_unresolved.empty()) {
    for (size_t from = 0; from < config.datadog.keys_unresolved.size();) {
      const size_t end = std::min(config.datadog.keys_unresolved.find('\n', from),
                                  config.datadog.keys_unresolved.size());
      problems.errors.push_back(config.datadog.keys_unresolved.substr(from, end - from) +
                                " (datadog_monitors conditions need the API and application keys)");
      from = end + 1;
    }
  }
  if (!config.http.ack_link_secret_unresolved.empty()) {
    problems.errors.push_back(config.http.ack_link_secret_unresolved);
  }
  if (!config.http.token_unresolved.empty()) {
    problems.errors.push_back(config.http.token_unresolved);
  }
  if (options.dispatch && !config.channels.empty()) {
    std::vector<std::string> channels = ChannelProblems(config, clock);
    problems.errors.insert(problems.errors.end(), channels.begin(), channels.end());
  } else {
    // Sending is another process's; checking the callbacks (Slack's button, PagerDuty's
    // webhook) is still this one's HTTP surface's.
    for (const config::ChannelConfig& channel : config.channels) {
      problems.errors.insert(problems.errors.end(), channel.unresolved_callbacks.begin(),
                             channel.unresolved_callbacks.end());
    }
  }
  if (options.network) CheckQueries(config, problems);
  return problems;
}

}  // namespace quell::wiring
