// The replay pipeline in process over 1M contract lines: parse, evaluate, format. Parsing
// alone is measured beside it in the same run, as the ceiling the pipeline is compared with.
#include <benchmark/benchmark.h>

#include "quell/adapters/jsonl/decision_line.h"
#include "quell/adapters/jsonl/observation_parser.h"
#include "quell/app/memory_incidents.h"
#include "trace_gen.h"

namespace {

struct Lines {
  std::string text;
  std::vector<std::string_view> lines;
};

const Lines& Trace() {
  static const Lines trace = [] {
    Lines t;
    t.text = quell::bench::ToJsonLines(quell::bench::MakeTrace(
        quell::bench::TraceSize(1'000'000, 1'000), quell::bench::TraceSize(100'000, 100)));
    t.text.append(quell::jsonl::ObservationParser::kPadding, ' ');
    size_t start = 0;
    for (size_t i = 0; i < t.text.size(); ++i) {
      if (t.text[i] == '\n') {
        t.lines.emplace_back(t.text.data() + start, i - start);
        start = i + 1;
      }
    }
    return t;
  }();
  return trace;
}

size_t Readable(const Lines& t, std::string_view line) {
  return static_cast<size_t>(t.text.data() + t.text.size() - line.data());
}

void BM_ParseOnly(benchmark::State& state) {
  const Lines& t = Trace();
  quell::jsonl::ObservationParser parser;
  quell::core::Observation o;
  for (auto _ : state) {
    for (auto line : t.lines) benchmark::DoNotOptimize(parser.Parse(line, Readable(t, line), o));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(t.lines.size()));
}
BENCHMARK(BM_ParseOnly)->Unit(benchmark::kMillisecond);

void BM_ReplayPipeline(benchmark::State& state) {
  const Lines& t = Trace();
  quell::jsonl::ObservationParser parser;
  quell::core::Observation o;
  std::string out;
  for (auto _ : state) {
    quell::app::MemoryIncidents incidents{quell::core::Policy{}};
    for (auto line : t.lines) {
      if (!parser.Parse(line, Readable(t, line), o)) state.SkipWithError("parse failed");
      quell::jsonl::AppendDecisionLine(out, o, incidents.Apply(o));
      if (out.size() > 65536) out.clear();
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(t.lines.size()));
}
BENCHMARK(BM_ReplayPipeline)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
