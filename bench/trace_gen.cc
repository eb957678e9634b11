#include "trace_gen.h"

#include <cstdlib>
#include <random>

#include "quell/core/text/json_escape.h"

namespace quell::bench {

std::vector<core::Observation> MakeTrace(size_t lines, size_t keys, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const core::WallTime start{std::chrono::hours{24 * 20789 + 9}};
  std::vector<core::Observation> trace;
  trace.reserve(lines);
  std::vector<uint8_t> failing(keys, 0);
  for (size_t i = 0; i < lines; ++i) {
    const size_t key = i % keys;
    const size_t round = i / keys;
    // Flip a key's state now and then: long failing and healthy stretches, like real outages.
    if (rng() % 16 == 0) failing[key] = static_cast<uint8_t>(failing[key] ^ 1U);
    core::Health health = failing[key] != 0 ? core::Health::kUnhealthy : core::Health::kHealthy;
    if (rng() % 50 == 0) health = core::Health::kUnknown;
    core::Observation o;
    o.key = "tenant-" + std::to_string(key % 97) + ":model-answer:grp-" + std::to_string(key);
    o.at = start + std::chrono::minutes{static_cast<int64_t>(round)} +
           std::chrono::milliseconds{static_cast<int64_t>(key % 60000)};
    o.health = health;
    o.condition = "agent-errors";
    trace.push_back(std::move(o));
  }
  return trace;
}

std::string ToJsonLines(const std::vector<core::Observation>& trace) {
  std::string out;
  out.reserve(trace.size() * 120);
  for (const auto& o : trace) {
    out.append("{\"at\":\"");
    core::AppendRfc3339(out, o.at);
    out.append("\",\"key\":");
    core::AppendJsonString(out, o.key);
    out.append(",\"unhealthy\":");
    out.append(o.health == core::Health::kUnhealthy ? "true"
               : o.health == core::Health::kHealthy ? "false"
                                                    : "null");
    out.append(",\"condition\":\"agent-errors\"}\n");
  }
  return out;
}

size_t TraceSize(size_t full, size_t smoke) {
  return std::getenv("QUELL_BENCH_SMOKE") != nullptr ? smoke : full;
}

}  // namespace quell::bench
