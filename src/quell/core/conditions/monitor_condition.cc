#include "quell/core/conditions/monitor_condition.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "quell/core/engine/evidence.h"

namespace quell::core {
namespace {

// Which of two observations of one key wins: a failure anywhere is a failure, and a group that
// proves nothing (no data) must not let a healthy twin resolve the key.
int Rank(Health health) {
  switch (health) {
    case Health::kUnhealthy:
      return 2;
    case Health::kUnknown:
      return 1;
    case Health::kHealthy:
      return 0;
  }
  return 0;
}

}  // namespace

std::optional<std::string_view> MonitorField(const MonitorGroup& group, std::string_view name) {
  if (name == "monitor_id" || name == "id") return std::string_view{group.monitor_id};
  if (name == "monitor_name" || name == "name") return std::string_view{group.monitor_name};
  if (name == "group") return std::string_view{group.group};
  if (name == "status") return std::string_view{group.status};
  if (name.starts_with("tags.")) return FindLabel(group.tags, name.substr(5));
  return std::nullopt;
}

std::string MonitorEvidence(const MonitorGroup& group) {
  EvidenceInput input;
  const auto add = [&input](const char* name, std::string value) {
    if (!value.empty()) input.fields.emplace_back(name, std::move(value));
  };
  add("title", group.monitor_name);
  add("level", group.level);
  // The example line a message shows: "<monitor> - Alert on env:prod,host:web-1".
  add("message", group.group == "*" || group.group.empty() ? group.status
                                                           : group.status + " on " + group.group);
  add("monitor_id", group.monitor_id);
  add("group", group.group);
  add("status", group.status);
  if (group.triggered_at) add("triggered_at", FormatRfc3339(*group.triggered_at));
  add("url", group.url);
  input.tags = group.tags;
  return BuildEvidence(input, RedactOptions{});
}

std::vector<Observation> ObserveMonitors(const MonitorCondition& condition,
                                         const MonitorListing& listing,
                                         std::span<const Incident> open_incidents, WallTime at) {
  std::vector<Observation> out;
  std::unordered_map<std::string, size_t> by_key;
  std::unordered_set<std::string_view> open_keys;
  for (const Incident& incident : open_incidents) {
    if (incident.condition == condition.common.name) open_keys.insert(incident.key);
  }
  // As for error groups: a healthy key with nothing open decides nothing, unless flap damping
  // counts its healthy polls.
  const bool keep_all_healthy = condition.common.policy.flap.has_value();

  for (const MonitorGroup& group : listing.groups) {
    // A partial listing only contributes what it proves: failures it saw.
    if (!listing.complete && group.health != Health::kUnhealthy) continue;
    const auto lookup = [&group](std::string_view field) { return MonitorField(group, field); };
    std::string key = condition.key.Render(lookup);
    if (group.health == Health::kHealthy && !keep_all_healthy && !open_keys.contains(key)) {
      continue;
    }
    const bool unhealthy = group.health == Health::kUnhealthy;
    Observation observation{
        .key = key,
        .at = at,
        .health = group.health,
        .condition = condition.common.name,
        .evidence = unhealthy ? MonitorEvidence(group) : std::string(),
        .labels = unhealthy ? condition.key.LabelsOf(lookup) : Labels{},
        .upstream_count = std::nullopt,
        .first_seen_at = unhealthy && group.triggered_at && *group.triggered_at < at
                             ? group.triggered_at
                             : std::nullopt,
        .expire = false,
        .evidence_fingerprint = std::nullopt,
    };
    const auto [it, inserted] = by_key.try_emplace(std::move(key), out.size());
    if (inserted) {
      out.push_back(std::move(observation));
    } else if (Rank(observation.health) > Rank(out[it->second].health)) {
      out[it->second] = std::move(observation);
    }
  }

  // Open incidents the listing did not mention: gone from a complete listing means the monitor
  // or its group is gone, which is healthy; unseen in a partial one is simply unknown.
  for (const Incident& incident : open_incidents) {
    if (incident.condition != condition.common.name || by_key.contains(incident.key)) continue;
    by_key.emplace(incident.key, out.size());
    out.push_back(Observation{
        .key = incident.key,
        .at = at,
        .health = listing.complete ? Health::kHealthy : Health::kUnknown,
        .condition = condition.common.name,
        .evidence = {},
        .labels = {},
        .upstream_count = std::nullopt,
        .first_seen_at = std::nullopt,
        .expire = false,
        .evidence_fingerprint = std::nullopt,
    });
  }
  std::sort(out.begin(), out.end(),
            [](const Observation& a, const Observation& b) { return a.key < b.key; });
  return out;
}

}  // namespace quell::core
