#include "quell/core/conditions/shadow_report.h"

#include <algorithm>
#include <map>
#include <set>

#include "quell/core/engine/decision.h"

namespace quell::core {
namespace {

// Sorted set per name, then the names with 2+ members, most members first.
template <typename Entry, typename Fill>
std::vector<Entry> TopShared(const std::map<std::string, std::set<std::string>>& by_name,
                             const ShadowReportOptions& options, uint64_t& shared, Fill fill) {
  std::vector<const std::pair<const std::string, std::set<std::string>>*> many;
  for (const auto& entry : by_name) {
    if (entry.second.size() > 1) many.push_back(&entry);
  }
  shared = many.size();
  std::stable_sort(many.begin(), many.end(), [](const auto* a, const auto* b) {
    return a->second.size() > b->second.size();
  });
  if (many.size() > options.top) many.resize(options.top);
  std::vector<Entry> out;
  out.reserve(many.size());
  for (const auto* entry : many) {
    Entry& e = out.emplace_back();
    std::vector<std::string> samples;
    for (const std::string& member : entry->second) {
      if (samples.size() >= options.samples) break;
      samples.push_back(member);
    }
    fill(e, entry->first, entry->second.size(), std::move(samples));
  }
  return out;
}

}  // namespace

bool AddDecisionCount(std::array<uint64_t, 7>& counts, std::string_view name, uint64_t n) {
  for (size_t k = 0; k < counts.size(); ++k) {
    if (name == DecisionName(static_cast<DecisionKind>(k))) {
      counts[k] += n;
      return true;
    }
  }
  return false;
}

ShadowReport ComputeShadowReport(WallTime since, const std::array<uint64_t, 7>& decisions,
                                 std::span<const KeyGroupRow> rows,
                                 const ShadowReportOptions& options) {
  ShadowReport report;
  report.since = since;
  report.decisions = decisions;
  std::map<std::string, std::set<std::string>> groups_by_key;
  std::map<std::string, std::set<std::string>> keys_by_group;
  for (const KeyGroupRow& row : rows) {
    groups_by_key[row.key].insert(row.group_id);
    keys_by_group[row.group_id].insert(row.key);
  }
  report.keys = groups_by_key.size();
  report.error_groups = keys_by_group.size();
  report.merged = TopShared<MergedKey>(
      groups_by_key, options, report.merged_keys,
      [](MergedKey& e, const std::string& key, size_t n, std::vector<std::string> samples) {
        e.key = key;
        e.groups = n;
        e.sample_groups = std::move(samples);
      });
  report.split = TopShared<SplitGroup>(
      keys_by_group, options, report.split_groups,
      [](SplitGroup& e, const std::string& id, size_t n, std::vector<std::string> samples) {
        e.group_id = id;
        e.keys = n;
        e.sample_keys = std::move(samples);
      });
  return report;
}

}  // namespace quell::core
