#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quell/adapters/config/config.h"
#include "quell/adapters/curl/curl_http_client.h"
#include "quell/adapters/datadog/datadog_monitor_source.h"
#include "quell/adapters/infrai/contract_check.h"
#include "quell/adapters/infrai/infrai_client.h"
#include "quell/adapters/infrai/infrai_error_source.h"
#include "quell/adapters/infrai/infrai_metric_source.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/prometheus/prometheus_source.h"
#include "quell/adapters/wiring/sentry_sources.h"
#include "quell/app/budgeted_http_client.h"
#include "quell/app/poller.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/operator_store.h"

namespace quell::wiring {

// Every adapter a poll cycle needs, built from a config and wired to a store and a clock:
// one libcurl client, a retrying client per remote with its own per-poll budget, the Infrai
// and Prometheus sources, and the Poller watching every condition.
class PollWiring {
 public:
  // kInvalidArgument when the config cannot run as written (an Infrai condition and no key).
  // With `operators` (the same connection's), every cycle also applies the operators' one-off
  // maintenance windows. `whole`: the whole config when `config` is one interval's part of it,
  // since a source's own incident goes to the channels of every condition reading the source.
  static core::Result<std::unique_ptr<PollWiring>> Create(const config::Config& config,
                                                          core::IncidentStore& store,
                                                          core::Clock& clock,
                                                          core::OperatorStore* operators = nullptr,
                                                          const config::Config* whole = nullptr);

  // One Poller::RunOnce (which renews each source's retry budget): with `held`, only the
  // watches under those leases, fenced.
  app::CycleReport RunCycle(app::DecisionSink& sink, const app::HeldLeases* held = nullptr);
  // The poll leases of the watches (Poller::LeaseNames).
  std::vector<std::string> LeaseNames() const { return poller_->LeaseNames(); }

  // What the config needs of the live Infrai surface, for `schema check`.
  infrai::ContractNeeds Needs() const;
  // Null when no condition uses Infrai.
  const infrai::InfraiClient* infrai() const { return infrai_client_.get(); }
  // Null when no condition uses Prometheus.
  prometheus::PrometheusSource* prometheus() const { return prometheus_.get(); }
  // Null when no condition uses Sentry.
  const SentrySources* sentry() const { return sentry_.get(); }
  // Null when no condition uses Datadog.
  datadog::DatadogMonitorSource* datadog() const { return datadog_.get(); }

 private:
  PollWiring() = default;

  config::Config config_;
  curl::CurlHttpClient http_;
  jsonl::JsonPayloadEncoder encoder_;
  std::unique_ptr<app::RetryingHttpClient> infrai_retrying_;
  std::unique_ptr<app::BudgetedHttpClient> infrai_http_;
  std::unique_ptr<infrai::InfraiClient> infrai_client_;
  std::unique_ptr<infrai::InfraiErrorSource> infrai_errors_;
  std::unique_ptr<infrai::InfraiMetricSource> infrai_metrics_;
  std::unique_ptr<app::RetryingHttpClient> prometheus_retrying_;
  std::unique_ptr<app::BudgetedHttpClient> prometheus_http_;
  std::unique_ptr<prometheus::PrometheusSource> prometheus_;
  std::unique_ptr<SentrySources> sentry_;
  std::unique_ptr<app::RetryingHttpClient> datadog_retrying_;
  std::unique_ptr<app::BudgetedHttpClient> datadog_http_;
  std::unique_ptr<datadog::DatadogMonitorSource> datadog_;
  std::unique_ptr<app::Poller> poller_;
};

// How long one poll may spend on a source (requests, retries and waits): its poll_deadline, or
// when absent the longest interval of the config's conditions.
core::Duration SourcePollDeadline(const config::Config& config, const config::HttpSettings& http);
// The longest one cycle may spend on its sources: the deadlines of the sources the config
// uses, summed, since a cycle polls them one after another.
core::Duration CyclePollDeadline(const config::Config& config);

}  // namespace quell::wiring
