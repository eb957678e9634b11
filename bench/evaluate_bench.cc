// The pure state machine, and the in-memory table replay uses, at 1k, 100k and 1M keys.
#include <benchmark/benchmark.h>

#include "quell/app/memory_incidents.h"
#include "quell/core/engine/evaluate.h"
#include "trace_gen.h"

namespace {

const size_t kTraceLines = quell::bench::TraceSize(4'000'000, 1'000);

// Evaluate alone: incidents addressed by index, so the figure is the core's own cost.
void BM_Evaluate(benchmark::State& state) {
  const auto keys = static_cast<size_t>(state.range(0));
  const auto trace = quell::bench::MakeTrace(std::max(kTraceLines, keys * 4), keys);
  const quell::core::Policy policy;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<quell::core::Incident> incidents(keys);
    state.ResumeTiming();
    for (size_t i = 0; i < trace.size(); ++i) {
      benchmark::DoNotOptimize(quell::core::Evaluate(incidents[i % keys], trace[i], policy));
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(trace.size()));
  state.counters["keys"] = static_cast<double>(keys);
}
BENCHMARK(BM_Evaluate)->Arg(1'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// Evaluate behind the hash table keyed by the dedupe key, as `quell replay` runs it.
void BM_MemoryIncidentsApply(benchmark::State& state) {
  const auto keys = static_cast<size_t>(state.range(0));
  const auto trace = quell::bench::MakeTrace(std::max(kTraceLines, keys * 4), keys);
  for (auto _ : state) {
    state.PauseTiming();
    quell::app::MemoryIncidents incidents{quell::core::Policy{}};
    incidents.Reserve(keys);
    state.ResumeTiming();
    for (const auto& observation : trace) benchmark::DoNotOptimize(incidents.Apply(observation));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(trace.size()));
}
BENCHMARK(BM_MemoryIncidentsApply)
    ->Arg(1'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
