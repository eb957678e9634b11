#pragma once

#include <optional>
#include <string>
#include <vector>

#include "quell/sim/store.h"

namespace quell::sim {

// Appends GroupToJson(g).dump() to `out` without building the json value: a listing page of
// 1,000 groups is the simulator's hottest answer. The bytes are the same as dump()'s (keys
// sorted, same escapes). Returns false, with `out` in an unspecified state, when a string is
// not valid UTF-8; dump() would throw there, so the caller falls back to GroupToJson.
bool AppendGroupJson(std::string& out, const Group& g);

// The `data` value of a listing page, {"groups":[...],"next_cursor":...} as dump() writes it;
// nullopt when a group holds invalid UTF-8 (see AppendGroupJson).
std::optional<std::string> GroupPageJson(const std::vector<const Group*>& groups,
                                         const std::optional<std::string>& next_cursor);

}  // namespace quell::sim
