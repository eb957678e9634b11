#include "quell/core/text/closest_name.h"

#include <algorithm>
#include <cstddef>

namespace quell::core {
namespace {

// Optimal string alignment distance: Levenshtein plus the swap of two adjacent letters, the
// commonest typing slip ("incidnets").
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> ClosestName(std::string_view typed,
                                       const std::vector<std::string>& names) {
  const size_t allowed = typed.size() <= 4 ? 1 : 2;
  std::optional<std::string> best;
  size_t best_distance = allowed + 1;
  bool tie = false;
  for (const std::string& name : names) {
    const size_t distance = EditDistance(typed, name);
    if (distance < best_distance) {
      best = name;
      best_distance = distance;
      tie = false;
    } else if (distance == best_distance && best) {
      tie = true;
    }
  }
  if (best && !tie) return best;
  if (typed.size() < 2) return std::nullopt;
  std::optional<std::string> prefixed;
  for (const std::string& name : names) {
    if (!name.starts_with(typed)) continue;
    if (prefixed) return std::nullopt;
    prefixed = name;
  }
  return prefixed;
}

}  // namespace quell::core
