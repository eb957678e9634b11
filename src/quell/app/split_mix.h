#pragma once

#include <cstdint>

namespace quell::app {

// splitmix64: a tiny, good-enough generator for jitter and run ids, deterministic for a given
// seed so tests replay. Not for secrets.
inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

}  // namespace quell::app
