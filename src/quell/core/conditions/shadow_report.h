#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/conditions/key_group.h"
#include "quell/core/text/time.h"

namespace quell::core {

struct ShadowReportOptions {
  size_t top = 10;     // entries per list
  size_t samples = 3;  // group ids (or keys) shown per entry
};

// A key under which several distinct error groups failed: maybe unrelated failures merged.
struct MergedKey {
  std::string key;
  uint64_t groups = 0;
  std::vector<std::string> sample_groups;  // the first few, in id order
};

// An error group that failed under several keys: one failure split too finely.
struct SplitGroup {
  std::string group_id;
  uint64_t keys = 0;
  std::vector<std::string> sample_keys;
};

struct ShadowReport {
  WallTime since;
  std::array<uint64_t, 7> decisions{};  // indexed by DecisionKind
  uint64_t error_groups = 0;            // distinct group ids seen failing
  uint64_t keys = 0;                    // distinct keys they failed under
  uint64_t merged_keys = 0;             // keys with 2+ groups (all, not only the top)
  uint64_t split_groups = 0;            // groups with 2+ keys
  std::vector<MergedKey> merged;        // most groups first, then key order; at most `top`
  std::vector<SplitGroup> split;        // most keys first, then id order; at most `top`
};

// Adds `n` to the count of the decision named `name` ("notify", ...); false for no such name.
bool AddDecisionCount(std::array<uint64_t, 7>& counts, std::string_view name, uint64_t n);

// The check before a real rollout: how many notifications the shadow run would have sent set
// against the failures it saw, and where the key template groups too coarsely or too finely.
ShadowReport ComputeShadowReport(WallTime since, const std::array<uint64_t, 7>& decisions,
                                 std::span<const KeyGroupRow> rows,
                                 const ShadowReportOptions& options);

}  // namespace quell::core
