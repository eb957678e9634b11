// Alertmanager's and Grafana's webhook payloads (docs/operations.md, "Fuzzing"), as POST
// /v1/inputs/alertmanager and /v1/inputs/grafana parse them, then keyed by a push condition as
// app::PushInput keys them. Input: the body.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_input.h"
#include "quell/adapters/inputs/alertmanager_payload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);  // NOLINT
  quell::inputs::AlertPayloadOptions options;
  options.max_alerts = 64;
  options.limits.max_evidence_bytes = 4096;
  auto alerts = quell::inputs::ParseAlertmanagerPayload(body, options);
  if (!alerts) {
    quell::fuzz::Require(alerts.error().code == quell::core::ErrorCode::kInvalidArgument,
                         "a refusal other than kInvalidArgument");
    return 0;
  }
  quell::fuzz::Require(alerts->size() <= options.max_alerts, "more alerts than max_alerts");
  for (const quell::core::PushedAlert& alert : *alerts) {
    for (size_t i = 1; i < alert.labels.size(); ++i) {
      quell::fuzz::Require(alert.labels[i - 1].first < alert.labels[i].first,
                           "labels not sorted and unique");
    }
  }
  static const quell::core::PushCondition kCondition = [] {
    quell::core::PushCondition condition;
    condition.common.name = "pushed";
    condition.key = *quell::core::KeyTemplate::Parse("{labels.tenant}:{labels.alertname}");
    return condition;
  }();
  const auto observations = quell::core::ObservePushedAlerts(
      kCondition, *alerts, quell::core::WallTime(std::chrono::seconds(1798794000)));
  quell::fuzz::Require(observations.size() <= alerts->size(), "more observations than alerts");
  return 0;
}
