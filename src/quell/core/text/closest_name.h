#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quell::core {

// The one name of `names` that `typed` most likely meant, for a "did you mean" line: the
// nearest by edit distance (insertions, deletions, substitutions and swaps of two neighbours
// each count one), when it is at most 1 for a word of up to 4 letters and at most 2 beyond, or
// else the only name `typed` begins (at least 2 letters). nullopt when none is near, or when two
// are equally near: a guess between two would mislead.
std::optional<std::string> ClosestName(std::string_view typed,
                                       const std::vector<std::string>& names);

}  // namespace quell::core
