#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace quell::core {

// A set of keys kept as 64-bit hashes, about 8 bytes a key: what a streamed poll remembers of
// the keys it has observed, so a million keys cost megabytes, not the keys themselves. Two keys
// sharing a hash (odds about n^2 / 2^65) count as one: the second is taken as observed. Batches
// go in as sorted runs, merged while a run is no bigger than half the one before it, so
// inserting n hashes costs O(n log n) and a lookup searches O(log n) runs.
class KeyHashSet {
 public:
  static uint64_t Hash(std::string_view key);

  bool Contains(uint64_t hash) const;
  bool Contains(std::string_view key) const { return Contains(Hash(key)); }
  // Adds a batch (any order, duplicates allowed).
  void Insert(std::vector<uint64_t> hashes);
  size_t size() const;

 private:
  std::vector<std::vector<uint64_t>> runs_;  // each sorted and unique; sizes decreasing
};

}  // namespace quell::core
