#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/conditions/condition.h"
#include "quell/core/conditions/key_template.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/labels.h"
#include "quell/core/engine/observation.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// One group of a monitor as a monitoring system rates it (a Datadog monitor's entry in
// state.groups: one per combination of its group-by tags). The source adapter maps its own
// status words to `health`, so the core never learns a vendor's vocabulary.
struct MonitorGroup {
  std::string monitor_id;
  std::string monitor_name;
  std::string group;   // "env:prod,host:web-1" as the source names it; "*" for an ungrouped one
  std::string status;  // the source's word: "Alert", "Warn", "OK", "No Data", ...
  Health health = Health::kUnknown;
  Labels tags;        // the group's tag:value pairs, sorted by name
  std::string url;    // where a person opens the monitor; "" when unknown
  std::string level;  // "error" for an alert, "warning" for a warning; "" otherwise
  std::optional<WallTime> triggered_at;  // the group's last trigger, when the source says
};

// A listing of every monitor a query selects. `complete` is true only when every page was read
// and parsed; otherwise `error` says what stopped it.
struct MonitorListing {
  std::vector<MonitorGroup> groups;
  bool complete = false;
  uint32_t pages = 0;
  Error error;
};

// What a monitor condition asks of its source: the monitors carrying every one of these tags.
struct MonitorQuery {
  std::vector<std::string> monitor_tags;
};

struct MonitorCondition {
  ConditionCommon common;
  // Over monitor_id, monitor_name, group, status and tags.<name> (a group tag).
  KeyTemplate key;
  MonitorQuery query;
};

// A group field as a key template names it: monitor_id (or id), monitor_name (or name), group,
// status, tags.NAME; nullopt for anything else.
std::optional<std::string_view> MonitorField(const MonitorGroup& group, std::string_view name);

// The evidence an incident keeps of one group (title, status, group, link, tags), minimized and
// redacted as error-group evidence is.
std::string MonitorEvidence(const MonitorGroup& group);

// Turns one listing into observations at `at`, sorted by key, one per key. Each group observes
// its own health; groups sharing a key merge (unhealthy wins, then unknown). A complete listing
// also observes every open incident it no longer shows as healthy (the monitor or its group was
// deleted or stopped matching); a partial or failed one keeps only the unhealthy groups it read
// and observes every other open incident as unknown, because a missing page proves nothing.
std::vector<Observation> ObserveMonitors(const MonitorCondition& condition,
                                         const MonitorListing& listing,
                                         std::span<const Incident> open_incidents, WallTime at);

}  // namespace quell::core
