#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/conditions/condition.h"
#include "quell/core/conditions/error_group.h"
#include "quell/core/conditions/key_group.h"
#include "quell/core/conditions/key_template.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/observation.h"
#include "quell/core/text/time.h"

namespace quell::core {

// What makes a listed group unhealthy. kUnresolved: its status is unresolved. kNewEvents: it
// is unresolved and its last_seen moved past the previous complete listing's watermark (the
// largest last_seen that listing showed), so a quiet unresolved group counts as healthy.
enum class UnhealthyRule : uint8_t { kUnresolved, kNewEvents };

// Which groups a condition looks at; empty lists match everything.
struct GroupFilter {
  std::vector<std::string> levels;  // e.g. {"error", "fatal"}
  Labels tags;                      // every listed tag must be present with this value
};

struct ErrorGroupCondition {
  ConditionCommon common;
  KeyTemplate key;
  UnhealthyRule rule = UnhealthyRule::kUnresolved;
  GroupFilter filter;
};

// A group field as a key template names it: error_group_id (or id), title, message, level,
// status, count, first_seen, last_seen, tags.NAME, or any other field the source sent.
std::optional<std::string_view> GroupField(const ErrorGroup& group, std::string_view name);

// Whether a listed group counts as failing under the condition's rule, given the watermark of
// the last complete listing (ObserveGroups and ListingObserver judge a group alike).
bool IsUnhealthyGroup(const ErrorGroupCondition& condition, const ErrorGroup& group,
                      std::optional<WallTime> previous_watermark);

bool Matches(const GroupFilter& filter, const ErrorGroup& group);

struct GroupObservations {
  static constexpr size_t kNoGroup = static_cast<size_t>(-1);

  std::vector<Observation> observations;  // sorted by key, one per key
  // For each observation, the index in the listing of the group behind it (for a merged key,
  // the one that made it unhealthy), or kNoGroup; the poller enriches from that group.
  std::vector<size_t> groups;
  // Every (key, group id) whose group was unhealthy, sorted and unique: what the store keeps
  // for the shadow report (keys merging many groups, groups split over many keys).
  std::vector<KeyGroup> key_groups;
  std::optional<WallTime> watermark;  // the mark to store if this poll commits
  uint64_t groups_matched = 0;
};

// Builds the evidence text of one group's observation (already redacted).
using GroupEvidence = std::function<std::string(const ErrorGroup&)>;

// Turns one listing into observations at `at`. Groups sharing a key merge (unhealthy wins). A
// complete listing also observes every open incident whose group it no longer shows as healthy;
// an incomplete one observes the unhealthy groups it did read and every other open incident as
// unknown, and keeps the watermark, because a missing page proves nothing about health.
GroupObservations ObserveGroups(const ErrorGroupCondition& condition, const GroupListing& listing,
                                std::span<const Incident> open_incidents,
                                std::optional<WallTime> previous_watermark, WallTime at,
                                const GroupEvidence& evidence);

}  // namespace quell::core
