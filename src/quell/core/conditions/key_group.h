#pragma once

#include <cstdint>
#include <string>

#include "quell/core/text/time.h"

namespace quell::core {

// An error group seen failing under a dedupe key in one poll.
struct KeyGroup {
  std::string key;
  std::string group_id;
  bool operator==(const KeyGroup&) const = default;
};

// What the store remembers of a (key, group) pair across polls, for the shadow report.
struct KeyGroupRow {
  std::string key;
  std::string group_id;
  WallTime first_seen_at;
  WallTime last_seen_at;
  uint64_t polls = 0;  // polls that saw the group failing under the key
};

}  // namespace quell::core
