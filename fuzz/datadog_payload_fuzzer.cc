// Datadog's webhook integration payload (docs/inputs.md#datadog), as POST /v1/inputs/datadog
// parses it, then keyed by a push condition as app::PushInput keys it. Input: the body.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_input.h"
#include "quell/adapters/inputs/datadog_payload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);  // NOLINT
  quell::inputs::DatadogPayloadOptions options;
  options.limits.max_evidence_bytes = 4096;
  auto alerts = quell::inputs::ParseDatadogPayload(body, options);
  if (!alerts) {
    quell::fuzz::Require(alerts.error().code == quell::core::ErrorCode::kInvalidArgument,
                         "a refusal other than kInvalidArgument");
    return 0;
  }
  quell::fuzz::Require(alerts->size() <= 1, "more than one alert from one notification");
  for (const quell::core::PushedAlert& alert : *alerts) {
    if (alert.starts_at) {
      quell::fuzz::RequireWritableTime(*alert.starts_at, "date cannot be written back");
    }
    for (size_t i = 1; i < alert.labels.size(); ++i) {
      quell::fuzz::Require(alert.labels[i - 1].first < alert.labels[i].first,
                           "labels not sorted and unique");
    }
  }
  static const quell::core::PushCondition kCondition = [] {
    quell::core::PushCondition condition;
    condition.common.name = "dd-alerts";
    condition.key = *quell::core::KeyTemplate::Parse("{labels.monitor_id}:{labels.scope|all}");
    return condition;
  }();
  const auto observations = quell::core::ObservePushedAlerts(
      kCondition, *alerts, quell::core::WallTime(std::chrono::seconds(1798794000)));
  quell::fuzz::Require(observations.size() <= alerts->size(), "more observations than alerts");
  return 0;
}
