#include "quell/adapters/wiring/schema_check.h"

#include <string>

#include "quell/adapters/datadog/monitor_check.h"
#include "quell/adapters/infrai/contract_check.h"
#include "quell/adapters/prometheus/query_check.h"
#include "quell/adapters/sentry/sentry_schema_check.h"

namespace quell::wiring {
namespace {

// Each datadog_monitors condition's monitors, listed once.
size_t CheckDatadogSchema(PollWiring& poll, const config::Config& config, std::FILE* out) {
  datadog::DatadogMonitorSource* source = poll.datadog();
  if (source == nullptr) return 0;
  size_t found = 0;
  size_t warnings = 0;
  for (const config::DatadogConditionConfig& entry : config.datadog_conditions) {
    for (const datadog::MonitorFinding& finding :
         datadog::CheckMonitorCondition(*source, entry.condition)) {
      std::fprintf(out, "%s%s: %s\n", finding.warning ? "warning: " : "", finding.kind.c_str(),
                   finding.text.c_str());
      (finding.warning ? warnings : found) += 1;
    }
  }
  const std::string& url = config.datadog.api_url;
  const size_t checked = config.datadog_conditions.size();
  if (found == 0) {
    std::fprintf(out, "schema check: ok against %s (%zu Datadog condition%s, %zu warning%s)\n",
                 url.c_str(), checked, checked == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
  } else {
    std::fprintf(out, "schema check: %zu problem%s against %s\n", found, found == 1 ? "" : "s",
                 url.c_str());
  }
  return found;
}

}  // namespace

size_t CheckSchema(PollWiring& poll, const config::Config& config, std::FILE* out) {
  size_t problems = 0;
  const infrai::InfraiClient* client = poll.infrai();
  if (client != nullptr) {
    const infrai::ContractReport report = infrai::CheckContract(*client, poll.Needs());
    for (const infrai::ContractProblem& problem : report.problems) {
      std::fprintf(out, "%s: %s\n", problem.kind.c_str(), problem.text.c_str());
    }
    std::string checked;
    for (const std::string& item : report.checked) checked += (checked.empty() ? "" : "; ") + item;
    if (report.problems.empty()) {
      std::fprintf(out, "schema check: ok against %s (%s)\n", client->options().base_url.c_str(),
                   checked.c_str());
    } else {
      std::fprintf(out, "schema check: %zu problem%s against %s\n", report.problems.size(),
                   report.problems.size() == 1 ? "" : "s", client->options().base_url.c_str());
    }
    problems += report.problems.size();
  }

  // Each Prometheus condition's query, sent once: refused, keeping no series, or missing a
  // label its key reads (which would render as "-").
  prometheus::PrometheusSource* source = poll.prometheus();
  if (source != nullptr) {
    size_t checked = 0;
    size_t found = 0;
    size_t warnings = 0;
    for (const auto& entry : config.metric_conditions) {
      if (entry.source != config::MetricSourceKind::kPrometheus) continue;
      ++checked;
      for (const prometheus::ConditionFinding& finding :
           prometheus::CheckCondition(*source, entry.condition)) {
        std::fprintf(out, "%s%s: %s\n", finding.warning ? "warning: " : "", finding.kind.c_str(),
                     finding.text.c_str());
        (finding.warning ? warnings : found) += 1;
      }
    }
    const std::string& url = config.prometheus.url;
    if (found == 0) {
      std::fprintf(
          out, "schema check: ok against %s (%zu Prometheus condition%s%s)\n", url.c_str(), checked,
          checked == 1 ? "" : "s",
          warnings > 0
              ? (", " + std::to_string(warnings) + " warning" + (warnings == 1 ? "" : "s")).c_str()
              : "");
    } else {
      std::fprintf(out, "schema check: %zu problem%s against %s\n", found, found == 1 ? "" : "s",
                   url.c_str());
    }
    problems += found;
  }
  // Each Sentry condition's first page of issues (and, for a key over tags, its first issue's
  // latest event), read as a poll reads them: drift is a problem, a missing tag a warning.
  const SentrySources* sentry = poll.sentry();
  if (sentry != nullptr && !sentry->sources().empty()) {
    size_t found = 0;
    size_t warnings = 0;
    for (size_t i = 0; i < sentry->sources().size(); ++i) {
      const config::SentryConditionConfig& entry = config.sentry_conditions[i];
      for (const sentry::SchemaFinding& finding : sentry::CheckIssueSchema(
               *sentry->sources()[i], entry.condition.common.name, entry.condition.key)) {
        std::fprintf(out, "%s%s: %s\n", finding.warning ? "warning: " : "", finding.kind.c_str(),
                     finding.text.c_str());
        (finding.warning ? warnings : found) += 1;
      }
    }
    const std::string& url = config.sentry.base_url;
    const size_t checked = sentry->sources().size();
    if (found == 0) {
      std::fprintf(out, "schema check: ok against %s (%zu Sentry condition%s, %zu warning%s)\n",
                   url.c_str(), checked, checked == 1 ? "" : "s", warnings,
                   warnings == 1 ? "" : "s");
    } else {
      std::fprintf(out, "schema check: %zu problem%s against %s\n", found, found == 1 ? "" : "s",
                   url.c_str());
    }
    problems += found;
  }
  problems += CheckDatadogSchema(poll, config, out);
  if (client == nullptr && source == nullptr && sentry == nullptr && poll.datadog() == nullptr) {
    std::fprintf(out,
                 "schema check: no condition uses Infrai, Prometheus, Sentry or Datadog; nothing "
                 "to check\n");
  }
  return problems;
}

}  // namespace quell::wiring
