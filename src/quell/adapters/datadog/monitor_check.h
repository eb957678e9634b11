#pragma once

#include <string>
#include <vector>

#include "quell/adapters/datadog/datadog_monitor_source.h"
#include "quell/core/conditions/monitor_condition.h"

namespace quell::datadog {

// One thing `quell schema check` found about a datadog_monitors condition.
struct MonitorFinding {
  bool warning = false;  // printed, not counted as a problem
  std::string kind;      // "datadog listing", "datadog key"
  std::string text;
};

// Lists the condition's monitors once: an answer of another shape (schema drift), refused keys
// or an unreachable site is a problem; no monitor selected, or a tag the key reads that some
// group lacks (its key would read "-"), a warning.
std::vector<MonitorFinding> CheckMonitorCondition(DatadogMonitorSource& source,
                                                  const core::MonitorCondition& condition);

}  // namespace quell::datadog
