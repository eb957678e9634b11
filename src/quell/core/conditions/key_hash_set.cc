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

namespace {

constexpr uint64_t kEmpty = 0;
// The hash 0 marks an empty slot, so it is stored as another value (one more shared hash).
uint64_t Stored(uint64_t hash) { return hash == kEmpty ? 1 : hash; }

}  // namespace

bool KeyHashSet::Contains(uint64_t hash) const {
  if (slots_.empty()) return false;
  hash = Stored(hash);
  const size_t mask = slots_.size() - 1;
  for (size_t at = hash & mask;; at = (at + 1) & mask) {
    if (slots_[at] == hash) return true;
    if (slots_[at] == kEmpty) return false;
  }
}

void KeyHashSet::Add(uint64_t hash) {
  hash = Stored(hash);
  const size_t mask = slots_.size() - 1;
  for (size_t at = hash & mask;; at = (at + 1) & mask) {
    if (slots_[at] == hash) return;
    if (slots_[at] == kEmpty) {
      slots_[at] = hash;
      ++size_;
      return;
    }
  }
}

void KeyHashSet::Insert(const std::vector<uint64_t>& hashes) {
  if ((size_ + hashes.size()) * 2 > slots_.size()) {
    size_t capacity = std::max<size_t>(slots_.size(), 64);
    while ((size_ + hashes.size()) * 2 > capacity) capacity *= 2;
    std::vector<uint64_t> old(capacity, kEmpty);
    old.swap(slots_);
    size_ = 0;
    for (const uint64_t hash : old) {
      if (hash != kEmpty) Add(hash);
    }
  }
  for (const uint64_t hash : hashes) Add(hash);
}

}  // namespace quell::core
