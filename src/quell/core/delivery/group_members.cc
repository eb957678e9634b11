#include "quell/core/delivery/group_members.h"

#include <algorithm>
#include <tuple>

namespace quell::core {

void SortWaitingMembers(std::vector<OutboxRow>& members) {
  std::sort(members.begin(), members.end(), [](const OutboxRow& a, const OutboxRow& b) {
    // Keys compare as unsigned bytes (char_traits<char>), as SQLite and COLLATE "C" order them.
    return std::tie(a.created_at, a.key, a.generation, a.version, a.idempotency_key) <
           std::tie(b.created_at, b.key, b.generation, b.version, b.idempotency_key);
  });
}

GroupStanding StandingOf(std::span<const std::string> open_keys, std::span<const Silence> silences,
                         WallTime at) {
  GroupStanding standing;
  for (const std::string& key : open_keys) {
    if (IsSilenced(silences, key, at)) {
      ++standing.silenced;
    } else {
      ++standing.open;
    }
  }
  return standing;
}

}  // namespace quell::core
