#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quell/core/observation.h"

namespace quell::bench {

// A synthetic poll trace: `keys` conditions polled round-robin, one minute apart per round, each
// failing in bursts so that every decision kind occurs. Deterministic for a given seed.
std::vector<core::Observation> MakeTrace(size_t lines, size_t keys, uint64_t seed = 42);

// The same trace as contract JSON Lines.
std::string ToJsonLines(const std::vector<core::Observation>& trace);

}  // namespace quell::bench
