#pragma once

#include <string_view>
#include <vector>

#include "quell/core/conditions/push_condition.h"
#include "quell/core/engine/input_limits.h"
#include "quell/core/redact/redact.h"
#include "quell/core/result.h"

namespace quell::inputs {

struct DatadogPayloadOptions {
  core::InputLimits limits;  // evidence bytes
  core::RedactOptions redact;
};

// Parses the body Datadog's webhook integration sends with the payload template of
// docs/inputs.md: one JSON object of strings filled from Datadog's variables, of which
// `alert_id` ($ALERT_ID, the monitor's id) and `alert_transition` ($ALERT_TRANSITION) are
// required. Triggered, Re-Triggered, Warn, Re-Warn and Renotify fire; Recovered resolves; No
// Data, Re-No Data and Null give no alert at all (an empty vector: no data proves nothing, and
// the condition's stale_after turns a key nobody refreshes unknown). The alert's labels are
// monitor_id, scope ($ALERT_SCOPE, "" for a monitor without groups), severity (from
// $ALERT_TYPE: error or warning), priority when given, and each tag of the scope by its name
// (never overriding those), redacted as an Alertmanager alert's are; its annotations summary
// ($ALERT_TITLE, else $EVENT_TITLE), description ($TEXT_ONLY_MSG, else $ALERT_STATUS), link
// ($LINK) and transition; starts_at is $DATE (epoch milliseconds) of a firing alert. Its
// evidence has the shape of a pushed alert's ({annotations, status, startsAt}) so messages read
// it as one. kInvalidArgument names the field; unknown fields are ignored.
core::Result<std::vector<core::PushedAlert>> ParseDatadogPayload(
    std::string_view body, const DatadogPayloadOptions& options);

}  // namespace quell::inputs
