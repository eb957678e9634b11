#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "quell/core/conditions/push_condition.h"
#include "quell/core/engine/input_limits.h"
#include "quell/core/redact/redact.h"
#include "quell/core/result.h"

namespace quell::inputs {

struct AlertPayloadOptions {
  core::InputLimits limits;  // evidence bytes per alert (and its nesting)
  core::RedactOptions redact;
  // Alerts per request; Alertmanager's webhook_config `max_alerts` keeps a group under it.
  size_t max_alerts = 5000;
};

// Parses an Alertmanager webhook payload (version "4") or a Grafana webhook contact point's
// (the same shape with extra fields) into one PushedAlert per element of `alerts`: `status`
// "firing" or "resolved" (required), `labels` (an object of strings, required; each value
// redacted by core::RedactLabels: "[secret]" for a credential, a pseudonym for personal data)
// and `annotations` (optional) sorted by name, `startsAt` as starts_at unless it is Go's zero time,
// and as evidence the redacted JSON of {annotations, generatorURL, panelURL and dashboardURL
// (Grafana's), startsAt, endsAt, fingerprint, status}. Unknown fields are ignored, at the top and
// in each alert. kInvalidArgument names the field: "alerts[2].labels.team: must be a string". Any
// input, however malformed, ends in a value or that error.
core::Result<std::vector<core::PushedAlert>> ParseAlertmanagerPayload(
    std::string_view body, const AlertPayloadOptions& options);

}  // namespace quell::inputs
