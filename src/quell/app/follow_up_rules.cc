#include "quell/app/follow_up_rules.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

namespace quell::app {
namespace {

bool StillToSend(const core::OutboxRow& row) {
  return row.status == core::OutboxStatus::kPending || row.status == core::OutboxStatus::kGrouped;
}

}  // namespace

core::Result<uint64_t> CancelUnwantedFollowUps(core::StoreTransaction& tx,
                                               std::vector<core::OutboxRow>& rows,
                                               core::WallTime now) {
  std::vector<std::pair<std::string, uint64_t>> resolved;
  std::vector<std::pair<std::string, uint64_t>> followed;
  for (const core::OutboxRow& row : rows) {
    if (row.transition == core::TransitionKind::kResolve) {
      resolved.emplace_back(row.key, row.generation);
    }
    if (row.transition != core::TransitionKind::kOpen && StillToSend(row)) {
      followed.emplace_back(row.key, row.generation);
    }
  }
  for (auto* list : {&resolved, &followed}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  if (!resolved.empty()) {
    if (auto cancelled = tx.CancelTierOpens(resolved, now); !cancelled) return cancelled.error();
  }
  if (followed.empty()) return uint64_t{0};
  auto never_live = tx.NeverLiveChannels(followed);
  if (!never_live) return never_live.error();
  uint64_t cancelled = 0;
  for (core::OutboxRow& row : rows) {
    if (row.transition == core::TransitionKind::kOpen || !StillToSend(row)) continue;
    const bool never = std::any_of(never_live->begin(), never_live->end(),
                                   [&](const core::GenerationChannel& use) {
                                     return std::tie(use.key, use.generation, use.channel) ==
                                            std::tie(row.key, row.generation, row.channel);
                                   });
    if (!never) continue;
    row.status = core::OutboxStatus::kCancelled;
    row.group_key.clear();
    ++cancelled;
  }
  return cancelled;
}

}  // namespace quell::app
