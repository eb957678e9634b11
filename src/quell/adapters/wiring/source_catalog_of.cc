#include "quell/adapters/wiring/source_catalog_of.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "quell/adapters/wiring/poll_lease_map.h"
#include "quell/adapters/wiring/sentry_sources.h"
#include "quell/core/redact/redact_url.h"

namespace quell::wiring {
namespace {

// `url` without "user:password@" (core::RedactUrl, as in every error message), a query or a
// fragment: a base URL may carry a credential in either, and the page shows it to any reader.
std::string ShownUrl(std::string_view url) {
  return core::RedactUrl(url.substr(0, std::min(url.find('?'), url.find('#'))));
}

void See(app::SourceCatalog& catalog, std::string_view source, std::string_view type,
         std::string_view base_url, const core::ConditionCommon& common) {
  auto it = std::find_if(catalog.sources.begin(), catalog.sources.end(),
                         [&](const app::SourceEntry& s) { return s.name == source; });
  if (it == catalog.sources.end()) {
    it = catalog.sources.insert(
        catalog.sources.end(),
        app::SourceEntry{std::string(source), std::string(type), ShownUrl(base_url), {}});
  }
  it->conditions.push_back(common.name);
  catalog.conditions.push_back(
      app::ConditionEntry{common.name, std::string(source), common.interval, common.shadow});
}

}  // namespace

app::SourceCatalog SourceCatalogOf(const config::Config& config) {
  app::SourceCatalog catalog;
  for (const auto& condition : config.error_conditions) {
    See(catalog, kInfraiErrorsSource, "infrai", config.infrai.base_url, condition.common);
  }
  for (const auto& entry : config.metric_conditions) {
    if (entry.source == config::MetricSourceKind::kInfrai) {
      See(catalog, kInfraiMetricsSource, "infrai", config.infrai.base_url, entry.condition.common);
    } else {
      See(catalog, kPrometheusSource, "prometheus", config.prometheus.url, entry.condition.common);
    }
  }
  for (const auto& entry : config.sentry_conditions) {
    See(catalog, kSentrySource, "sentry", config.sentry.base_url, entry.condition.common);
  }
  for (const auto& entry : config.datadog_conditions) {
    See(catalog, kDatadogSource, "datadog", config.datadog.api_url, entry.condition.common);
  }
  // Pushed to quell: no URL to show; the source's cycles are the stale sweep's.
  for (const auto& condition : config.push_conditions) {
    See(catalog, kPushSource, "push", "", condition.common);
  }
  // Sources in a fixed order whatever the conditions' order, so the page does not reshuffle.
  const auto rank = [](const app::SourceEntry& s) {
    return s.name == kInfraiErrorsSource    ? 0
           : s.name == kInfraiMetricsSource ? 1
           : s.name == kPrometheusSource    ? 2
                                            : 3;
  };
  std::stable_sort(catalog.sources.begin(), catalog.sources.end(),
                   [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  return catalog;
}

}  // namespace quell::wiring
