#include "quell/core/conditions/error_group_condition.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace quell::core {
bool IsUnhealthyGroup(const ErrorGroupCondition& condition, const ErrorGroup& group,
                      std::optional<WallTime> previous_watermark) {
  if (group.resolved) return false;
  if (condition.rule == UnhealthyRule::kUnresolved) return true;
  // kNewEvents. Without a previous complete listing there is no baseline, and an unresolved
  // group is the best evidence there is; without last_seen the rule cannot apply either.
  if (!previous_watermark || !group.last_seen) return true;
  return *group.last_seen > *previous_watermark;
}

std::optional<std::string_view> GroupField(const ErrorGroup& group, std::string_view name) {
  if (name == "error_group_id" || name == "id") return std::string_view{group.id};
  if (name == "title") return std::string_view{group.title};
  if (name == "message") return std::string_view{group.message};
  if (name == "level") return std::string_view{group.level};
  if (name == "status") {
    return std::string_view(group.resolved ? "resolved" : "unresolved");
  }
  if (name.starts_with("tags.")) return FindLabel(group.tags, name.substr(5));
  return FindLabel(group.fields, name);
}

bool Matches(const GroupFilter& filter, const ErrorGroup& group) {
  if (!filter.levels.empty() &&
      std::find(filter.levels.begin(), filter.levels.end(), group.level) == filter.levels.end()) {
    return false;
  }
  return std::all_of(filter.tags.begin(), filter.tags.end(), [&group](const auto& tag) {
    const auto value = FindLabel(group.tags, tag.first);
    return value && *value == tag.second;
  });
}

GroupObservations ObserveGroups(const ErrorGroupCondition& condition, const GroupListing& listing,
                                std::span<const Incident> open_incidents,
                                std::optional<WallTime> previous_watermark, WallTime at,
                                const GroupEvidence& evidence) {
  GroupObservations result;
  result.watermark = previous_watermark;
  std::unordered_map<std::string, size_t> by_key;
  by_key.reserve(listing.groups.size() + open_incidents.size());
  // A healthy observation of a key with no open incident decides `ignore` and changes nothing,
  // so it is not emitted: a listing of 100k mostly healthy groups costs the store only its
  // failures. Flap damping is the exception: it counts healthy polls of resolved keys too.
  std::unordered_set<std::string_view> open_keys;
  for (const Incident& incident : open_incidents) {
    if (incident.condition == condition.common.name) open_keys.insert(incident.key);
  }
  const bool keep_all_healthy = condition.common.policy.flap.has_value();

  std::string key;
  for (size_t index = 0; index < listing.groups.size(); ++index) {
    const ErrorGroup& group = listing.groups[index];
    if (!Matches(condition.filter, group)) continue;
    ++result.groups_matched;
    if (listing.complete && group.last_seen &&
        (!result.watermark || *group.last_seen > *result.watermark)) {
      result.watermark = group.last_seen;
    }
    const bool unhealthy = IsUnhealthyGroup(condition, group, previous_watermark);
    // A partial listing only ever contributes what it proves: failures it saw.
    if (!listing.complete && !unhealthy) continue;

    key.clear();
    condition.key.AppendTo(key,
                           [&group](std::string_view field) { return GroupField(group, field); });
    if (unhealthy) result.key_groups.push_back(KeyGroup{key, group.id});
    if (!unhealthy && !keep_all_healthy && !open_keys.contains(key)) continue;
    const auto lookup = [&group](std::string_view field) { return GroupField(group, field); };
    const auto [it, inserted] = by_key.try_emplace(key, result.observations.size());
    if (inserted) {
      result.observations.push_back(Observation{
          .key = key,
          .at = at,
          .health = unhealthy ? Health::kUnhealthy : Health::kHealthy,
          .condition = condition.common.name,
          .evidence = unhealthy && evidence ? evidence(group) : std::string(),
          .labels = unhealthy ? condition.key.LabelsOf(lookup) : Labels{},
          .upstream_count = unhealthy ? std::optional<uint64_t>(group.count) : std::nullopt,
          .first_seen_at = std::nullopt,
          .expire = false,
          .evidence_fingerprint = std::nullopt,
      });
      result.groups.push_back(index);
    } else if (unhealthy && result.observations[it->second].health != Health::kUnhealthy) {
      Observation& merged = result.observations[it->second];
      merged.health = Health::kUnhealthy;
      if (evidence) merged.evidence = evidence(group);
      merged.labels = condition.key.LabelsOf(lookup);
      merged.upstream_count = group.count;
      result.groups[it->second] = index;
    } else if (unhealthy) {
      // Groups sharing a key: their events all count upstream.
      Observation& merged = result.observations[it->second];
      merged.upstream_count = merged.upstream_count.value_or(0) + group.count;
    }
  }

  // Open incidents the listing did not mention: gone from a complete listing means the group
  // was deleted or aged out, which is healthy; unseen in a partial one is simply unknown.
  for (const Incident& incident : open_incidents) {
    if (incident.condition != condition.common.name || by_key.contains(incident.key)) continue;
    by_key.emplace(incident.key, result.observations.size());
    result.observations.push_back(Observation{
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
    result.groups.push_back(GroupObservations::kNoGroup);
  }

  // Sort observations and their group indexes together, through a permutation.
  std::vector<size_t> order(result.observations.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&result](size_t a, size_t b) {
    return result.observations[a].key < result.observations[b].key;
  });
  GroupObservations sorted;
  sorted.watermark = result.watermark;
  sorted.groups_matched = result.groups_matched;
  sorted.key_groups = std::move(result.key_groups);
  std::sort(sorted.key_groups.begin(), sorted.key_groups.end(),
            [](const KeyGroup& a, const KeyGroup& b) {
              return a.key != b.key ? a.key < b.key : a.group_id < b.group_id;
            });
  sorted.key_groups.erase(std::unique(sorted.key_groups.begin(), sorted.key_groups.end()),
                          sorted.key_groups.end());
  sorted.observations.reserve(order.size());
  sorted.groups.reserve(order.size());
  for (const size_t i : order) {
    sorted.observations.push_back(std::move(result.observations[i]));
    sorted.groups.push_back(result.groups[i]);
  }
  return sorted;
}

}  // namespace quell::core
