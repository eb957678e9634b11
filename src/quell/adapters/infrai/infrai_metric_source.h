#pragma once

#include "quell/adapters/infrai/infrai_client.h"
#include "quell/core/ports/sources.h"

namespace quell::infrai {

// Series from GET /v1/metrics/query. Its filters are not declared in discovery, so by default
// the request carries none: quell asks for everything and filters and aggregates on its side
// (MetricCondition). A condition's `params` are sent as given, for a user who has checked what
// the live service accepts. Thread-safe.
class InfraiMetricSource : public core::MetricSource {
 public:
  explicit InfraiMetricSource(const InfraiClient& client);

  core::Result<core::MetricAnswer> Query(const core::MetricQuery& query) override;

 private:
  const InfraiClient& client_;
};

}  // namespace quell::infrai
