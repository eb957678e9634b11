#include "quell/app/pager_callback.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "quell/core/delivery/grouping.h"

namespace quell::app {
namespace {

struct IncidentTarget {
  std::string key;
  uint64_t generation = 0;
};

// "<key>:<generation>", split at the last colon (keys may hold colons).
std::optional<IncidentTarget> ParseIncidentKey(std::string_view dedup_key) {
  const size_t colon = dedup_key.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == dedup_key.size()) {
    return std::nullopt;
  }
  const std::string_view digits = dedup_key.substr(colon + 1);
  if (digits.size() > 19 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return IncidentTarget{std::string(dedup_key.substr(0, colon)), std::stoull(std::string(digits))};
}

bool InGroup(const core::Incident& incident,
             const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& [name, value] : pairs) {
    if (name == core::kConditionGroupLabel) {
      if (incident.condition != value) return false;
      continue;
    }
    if (core::FindLabel(incident.labels, name).value_or("") != value) return false;
  }
  return true;
}

core::Error NothingOpen(std::string_view dedup_key, std::string_view why) {
  return core::MakeError(core::ErrorCode::kNotFound,
                         "dedup key \"" + std::string(dedup_key) + "\": " + std::string(why));
}

}  // namespace

core::Result<std::vector<std::string>> ApplyPagerAction(OperatorCommands& commands,
                                                        std::string_view dedup_key,
                                                        PagerAction action, std::string_view by,
                                                        core::WallTime now) {
  auto open = commands.ListIncidents(/*open_only=*/true);
  if (!open) return open.error();
  std::vector<IncidentTarget> targets;
  if (core::IsGroupKey(dedup_key)) {
    const auto pairs = core::GroupKeyLabels(dedup_key.substr(core::kGroupKeyPrefix.size()));
    for (const core::Incident& incident : *open) {
      if (InGroup(incident, pairs)) targets.push_back({incident.key, incident.generation});
    }
    if (targets.empty()) return NothingOpen(dedup_key, "no open member of that group");
  } else {
    auto target = ParseIncidentKey(dedup_key);
    if (!target) return NothingOpen(dedup_key, "not one of quell's dedup keys");
    const bool is_open = std::any_of(open->begin(), open->end(), [&](const core::Incident& in) {
      return in.key == target->key && in.generation == target->generation;
    });
    if (!is_open) return NothingOpen(dedup_key, "that generation of the key is not open");
    targets.push_back(std::move(*target));
  }
  std::vector<std::string> done;
  for (const IncidentTarget& target : targets) {
    core::Status status;
    if (action == PagerAction::kAck) {
      auto acked = commands.Ack(target.key, by, now, target.generation);
      if (!acked) status = acked.error();
    } else {
      auto resolved = commands.Resolve(target.key, by, now);
      if (!resolved) status = resolved.error();
    }
    if (status) {
      done.push_back(target.key);
    } else if (status.error().code != core::ErrorCode::kRejected &&
               status.error().code != core::ErrorCode::kNotFound) {
      return status.error();  // the store's: the pager retries the whole callback
    }
  }
  if (done.empty()) return NothingOpen(dedup_key, "nothing left open to act on");
  return done;
}

}  // namespace quell::app
