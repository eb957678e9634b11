#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/conditions/monitor_condition.h"
#include "quell/core/result.h"

namespace quell::datadog {

// One page of GET /api/v1/monitor?group_states=all as quell reads it.
struct MonitorPage {
  std::vector<core::MonitorGroup> groups;  // every group of every monitor on the page
  size_t monitors = 0;                     // how many monitors the page held
};

// Datadog's word for a group's state as a health: Alert and Warn unhealthy, OK healthy, and
// No Data, Unknown, Skipped and Ignored unknown (they prove nothing about the group). nullopt
// for a word Datadog does not document: the poll fails loudly rather than guess.
std::optional<core::Health> HealthOfStatus(std::string_view status);

// A group name ("env:prod,host:web-1", Datadog's group-by tags) as sorted tags; a tag without a
// ':' has an empty value; the first of two with one name wins.
core::Labels TagsOfGroup(std::string_view group);

// Reads one answer (its HTTP status and body). 200: an array of monitors, each with a numeric
// `id`, a string `name` and `overall_state`, and `state.groups`, an object of groups each with a
// string `status` (and optionally `last_triggered_ts`, in seconds); a monitor with no groups is
// one group "*" in its overall_state. `app_url` ("https://app.datadoghq.com") gives each group
// its link, <app_url>/monitors/<id>. kCorrupt naming the field when the answer has another
// shape or a state Datadog does not document (schema drift); kRejected for 400, 401, 403 and
// 404 (a bad query or keys: retrying cannot help); kUnavailable for 429 and 5xx. Datadog's own
// words from its {"errors":[...]} body are kept, cut short; nothing of the request is.
core::Result<MonitorPage> ParseMonitorPage(int status, std::string_view body,
                                           std::string_view app_url);

}  // namespace quell::datadog
