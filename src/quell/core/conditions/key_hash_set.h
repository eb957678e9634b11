#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace quell::core {

// A set of keys kept as 64-bit hashes, 8 to 16 bytes a key: what a streamed poll remembers of
// the keys it has observed, so a million keys cost megabytes, not the keys themselves. Two keys
// sharing a hash (odds about n^2 / 2^65) count as one: the second is taken as observed. An
// open-addressing table at most half full: a lookup is one or two probes of adjacent slots.
// (Sorted runs merged LSM-style, before, searched O(log n) runs of up to a million hashes each:
// 6% of a steady poll's CPU at a million keys.)
class KeyHashSet {
 public:
  static uint64_t Hash(std::string_view key);

  bool Contains(uint64_t hash) const;
  bool Contains(std::string_view key) const { return Contains(Hash(key)); }
  // Adds a batch (any order, duplicates allowed).
  void Insert(const std::vector<uint64_t>& hashes);
  size_t size() const { return size_; }

 private:
  void Add(uint64_t hash);

  std::vector<uint64_t> slots_;  // a power of two of them; kEmpty where none
  size_t size_ = 0;
};

}  // namespace quell::core
