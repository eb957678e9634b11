#include "quell/core/conditions/push_condition.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>

namespace quell::core {

Status Validate(const PushCondition& condition) {
  if (condition.stale_after <= Duration::zero()) {
    return MakeError(ErrorCode::kInvalidArgument, "stale_after: must be positive");
  }
  if (condition.expire_after && *condition.expire_after <= condition.stale_after) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "expire_after: must be longer than stale_after (" +
                         FormatDuration(condition.stale_after) + ")");
  }
  return {};
}

namespace {

KeyTemplate::Lookup LookupIn(const PushedAlert& alert) {
  return [&alert](std::string_view field) -> std::optional<std::string_view> {
    if (field.starts_with("labels.")) return FindLabel(alert.labels, field.substr(7));
    if (field.starts_with("annotations.")) return FindLabel(alert.annotations, field.substr(12));
    return std::nullopt;
  };
}

}  // namespace

Status CheckKeyFields(const PushCondition& condition, std::span<const PushedAlert> alerts) {
  for (size_t i = 0; i < alerts.size(); ++i) {
    if (const auto missing = condition.key.MissingField(LookupIn(alerts[i]))) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "alerts[" + std::to_string(i) + "]." + *missing +
                           ": missing, the key template \"" + condition.key.text() + "\" needs it");
    }
  }
  return {};
}

std::vector<Observation> ObservePushedAlerts(const PushCondition& condition,
                                             std::span<const PushedAlert> alerts, WallTime now) {
  std::vector<Observation> out;
  std::map<std::string, size_t, std::less<>> by_key;
  for (const PushedAlert& alert : alerts) {
    std::string key = condition.key.Render(LookupIn(alert));
    const Health health = alert.firing ? Health::kUnhealthy : Health::kHealthy;
    const auto [it, added] = by_key.emplace(key, out.size());
    if (added) {
      Observation& o = out.emplace_back();
      o.key = std::move(key);
      o.at = now;
      o.health = health;
      o.condition = condition.common.name;
      o.evidence = alert.evidence;
      o.labels = alert.labels;
      o.first_seen_at = alert.starts_at;
      continue;
    }
    Observation& o = out[it->second];
    if (alert.starts_at && (!o.first_seen_at || *alert.starts_at < *o.first_seen_at)) {
      o.first_seen_at = alert.starts_at;
    }
    if (alert.firing && o.health != Health::kUnhealthy) {
      o.health = Health::kUnhealthy;
      o.evidence = alert.evidence;
      o.labels = alert.labels;
    }
  }
  return out;
}

std::vector<Observation> ObserveStalePushes(const PushCondition& condition,
                                            std::span<const Incident> open, WallTime now) {
  std::vector<Observation> out;
  for (const Incident& incident : open) {
    if (!incident.is_open() || incident.condition != condition.common.name) continue;
    // An open incident was observed at least once; without a time it is as old as its open.
    const std::optional<WallTime> last =
        incident.last_observed_at ? incident.last_observed_at : incident.opened_at;
    if (!last || now - *last < condition.stale_after) continue;
    Observation& o = out.emplace_back();
    o.key = incident.key;
    o.at = now;
    o.health = Health::kUnknown;
    o.condition = condition.common.name;
    o.expire = condition.expire_after && now - *last >= *condition.expire_after;
  }
  std::sort(out.begin(), out.end(),
            [](const Observation& a, const Observation& b) { return a.key < b.key; });
  return out;
}

}  // namespace quell::core
