#include "quell/core/conditions/source_health.h"

#include <algorithm>

#include "quell/core/redact/redact.h"
#include "quell/core/text/json_escape.h"

namespace quell::core {

std::string SourceHealthKey(std::string_view source) { return "source:" + std::string(source); }

std::string PushSenderName(std::string_view condition) { return "push/" + std::string(condition); }

Policy SourceHealthPolicy(uint32_t failures_to_open, Duration cooldown) {
  Policy policy;
  policy.cooldown = cooldown;
  policy.unhealthy_polls_to_open = failures_to_open == 0 ? 1 : failures_to_open;
  policy.healthy_polls_to_close = 1;
  return policy;
}

Observation ObserveSourcePoll(const SourcePoll& poll, WallTime now) {
  Observation o;
  o.key = SourceHealthKey(poll.source);
  o.at = now;
  o.condition = std::string(kSourceHealthCondition);
  o.health = poll.ok ? Health::kHealthy : Health::kUnhealthy;
  if (poll.ok) return o;
  o.labels = {{"source", poll.source}};
  std::string error = RedactErrorText(poll.error);
  if (error.empty()) error = "no reason given";
  o.evidence = "{\"title\":";
  AppendJsonString(o.evidence, poll.what.empty() ? "quell cannot poll " + poll.source : poll.what);
  o.evidence += ",\"message\":";
  AppendJsonString(o.evidence, error);
  o.evidence += ",\"source\":";
  AppendJsonString(o.evidence, poll.source);
  o.evidence += '}';
  return o;
}

SourcePoll PushSweepPoll(const PushCondition& condition, std::span<const Incident> open,
                         WallTime now) {
  SourcePoll poll;
  poll.source = PushSenderName(condition.common.name);
  const auto keys =
      static_cast<size_t>(std::count_if(open.begin(), open.end(), [&](const Incident& i) {
        return i.is_open() && i.condition == condition.common.name;
      }));
  // Staleness as the sweep itself judges it: one observation per open key nobody refreshed.
  const size_t stale = ObserveStalePushes(condition, open, now).size();
  if (keys == 0 || stale < keys) return poll;
  poll.ok = false;
  poll.what = "nothing pushed to condition " + condition.common.name;
  poll.error = "none of its " + std::to_string(stale) + (stale == 1 ? " open key" : " open keys") +
               " was pushed within stale_after (" + FormatDuration(condition.stale_after) + ")";
  return poll;
}

}  // namespace quell::core
