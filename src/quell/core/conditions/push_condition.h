#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "quell/core/conditions/condition.h"
#include "quell/core/conditions/key_template.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/labels.h"
#include "quell/core/engine/observation.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// A condition fed by alerts pushed to quell (Alertmanager's or Grafana's webhook, or quell's
// own observation JSON) instead of a polled source. quell never sees such a key unless it is
// pushed, so silence proves nothing: a key whose incident is open and that nobody refreshed
// within `stale_after` is observed unknown (never healthy) at every sweep, and with
// `expire_after` an incident left that long without a push resolves (Reason::kExpired).
struct PushCondition {
  ConditionCommon common;
  // Over "labels.<name>" and "annotations.<name>", e.g. "{labels.tenant}:{labels.alertname}".
  KeyTemplate key;
  Duration stale_after = std::chrono::minutes{15};
  std::optional<Duration> expire_after;  // > stale_after when set
};

// kInvalidArgument naming the field: stale_after not positive, expire_after not past it.
Status Validate(const PushCondition& condition);

// One alert as pushed: an Alertmanager or Grafana alert, or a labelled quell observation.
struct PushedAlert {
  bool firing = true;  // "firing" is unhealthy, "resolved" healthy
  Labels labels;       // sorted by name; they become the incident's labels
  Labels annotations;  // sorted by name; read by the key template, kept in the evidence
  std::optional<WallTime> starts_at;  // the alert's own start: the key's first-seen time
  std::string evidence;               // compact, already-redacted JSON; "" for none
};

// kInvalidArgument when an alert lacks a field the key template needs and gives no fallback for,
// naming the first such: "alerts[2].labels.tenant: missing, the key template
// \"{labels.tenant}:{labels.alertname}\" needs it". Such an alert would share the key "-" with
// every other alert lacking it (and, inhibiting by that label, hold back unrelated incidents).
Status CheckKeyFields(const PushCondition& condition, std::span<const PushedAlert> alerts);

// The observations of alerts received at `now`, one per key in the order keys first appear:
// alerts whose labels render one key are one observation, unhealthy if any of them fires (a
// resolved twin must not hide a firing one), with the earliest starts_at and the first firing
// alert's labels and evidence (the first alert's when none fires).
std::vector<Observation> ObservePushedAlerts(const PushCondition& condition,
                                             std::span<const PushedAlert> alerts, WallTime now);

// The sweep of a push condition at `now`, over its open incidents: one unknown observation for
// each not observed within stale_after, or an expiring one (Observation::expire) for each not
// observed within expire_after; sorted by key. Fresh incidents observe nothing.
std::vector<Observation> ObserveStalePushes(const PushCondition& condition,
                                            std::span<const Incident> open, WallTime now);

}  // namespace quell::core
