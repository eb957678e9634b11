#include "quell/adapters/datadog/monitor_check.h"

#include <cstddef>
#include <utility>

#include "quell/core/redact/redact.h"

namespace quell::datadog {

std::vector<MonitorFinding> CheckMonitorCondition(DatadogMonitorSource& source,
                                                  const core::MonitorCondition& condition) {
  std::vector<MonitorFinding> findings;
  const std::string& name = condition.common.name;
  const core::MonitorListing listing = source.List(condition.query);
  if (!listing.complete) {
    findings.push_back(
        {false, "datadog listing",
         "condition \"" + name + "\": " + core::RedactErrorText(listing.error.message)});
    return findings;
  }
  if (listing.groups.empty()) {
    findings.push_back({true, "datadog listing",
                        "condition \"" + name +
                            "\": no monitor carries the monitor_tags, so it "
                            "observes nothing"});
    return findings;
  }
  for (const std::string& field : condition.key.Fields()) {
    if (!field.starts_with("tags.")) continue;
    const std::string tag = field.substr(5);
    size_t lacking = 0;
    for (const core::MonitorGroup& group : listing.groups) {
      if (!core::FindLabel(group.tags, tag)) ++lacking;
    }
    if (lacking == 0) continue;
    std::string text = "condition \"" + name + "\": {";
    text.append(field).append("}: ").append(std::to_string(lacking)).append(" of ");
    text.append(std::to_string(listing.groups.size())).append(" groups have no tag \"");
    text.append(tag).append("\" (their key reads \"-\")");
    findings.push_back({true, "datadog key", std::move(text)});
  }
  return findings;
}

}  // namespace quell::datadog
