#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quell/core/engine/observation.h"

namespace quell::bench {

// A synthetic poll trace: `keys` conditions polled round-robin, one minute apart per round, each
// failing in bursts so that every decision kind occurs. Deterministic for a given seed.
std::vector<core::Observation> MakeTrace(size_t lines, size_t keys, uint64_t seed = 42);

// The same trace as contract JSON Lines.
std::string ToJsonLines(const std::vector<core::Observation>& trace);

// `full`, or `smoke` when QUELL_BENCH_SMOKE is set: the test command runs every benchmark once
// at a tiny size to prove it still runs, not to measure it.
size_t TraceSize(size_t full, size_t smoke);

}  // namespace quell::bench
