#include "quell/core/conditions/key_hash_set.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace quell::core {

uint64_t KeyHashSet::Hash(std::string_view key) {
  // FNV-1a, then a SplitMix64 finaliser so that keys differing only at the end spread as well.
  uint64_t h = 14695981039346656037ULL;
  for (const char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

bool KeyHashSet::Contains(uint64_t hash) const {
  return std::any_of(runs_.begin(), runs_.end(), [hash](const std::vector<uint64_t>& run) {
    return std::binary_search(run.begin(), run.end(), hash);
  });
}

void KeyHashSet::Insert(std::vector<uint64_t> hashes) {
  if (hashes.empty()) return;
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  runs_.push_back(std::move(hashes));
  while (runs_.size() >= 2 && runs_[runs_.size() - 2].size() <= 2 * runs_.back().size()) {
    std::vector<uint64_t>& older = runs_[runs_.size() - 2];
    std::vector<uint64_t> merged;
    merged.reserve(older.size() + runs_.back().size());
    std::set_union(older.begin(), older.end(), runs_.back().begin(), runs_.back().end(),
                   std::back_inserter(merged));
    runs_.pop_back();
    runs_.back() = std::move(merged);
  }
}

size_t KeyHashSet::size() const {
  size_t n = 0;
  for (const std::vector<uint64_t>& run : runs_) n += run.size();
  return n;
}

}  // namespace quell::core
