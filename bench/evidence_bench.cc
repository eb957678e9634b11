// Evidence building and redaction, the largest part of quell's CPU in an opening poll cycle
// outside SQLite (docs/benchmarks.md, "One poll cycle"). Inputs shaped like quell-sim's
// generated groups, plus a detail with a stack trace and a few secrets, so the passes that
// find something are measured too.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

#include "quell/app/group_evidence.h"
#include "quell/core/redact/redact.h"

namespace {

using quell::core::ErrorGroup;

std::vector<ErrorGroup> SimGroups(size_t n) {
  std::vector<ErrorGroup> groups(n);
  const auto now = quell::core::WallTime{} + std::chrono::seconds(1'796'000'000);
  for (size_t i = 0; i < n; ++i) {
    ErrorGroup& g = groups[i];
    g.id = "grp_" + std::to_string(100000 + i);
    g.title = "Generated error " + std::to_string(i);
    g.message = g.title;
    g.level = "error";
    g.count = 1 + i % 7;
    g.last_seen = now;
    g.tags = {{"agent_stage", "model-answer"},
              {"service", "svc" + std::to_string(i % 10)},
              {"tenant", "acme"}};
  }
  return groups;
}

void BM_GroupEvidenceSimGroups(benchmark::State& state) {
  const auto groups = SimGroups(1000);
  const quell::core::RedactOptions redact;
  size_t k = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(quell::app::GroupEvidence(groups[k], nullptr, redact));
    k = (k + 1) % groups.size();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GroupEvidenceSimGroups);

constexpr const char* kException =
    "ConnectionError: could not reach postgres://app:hunter2@db.internal:5432/orders for "
    "jane.doe@example.com (card 4111 1111 1111 1111, call +44 20 7946 0958)\n"
    "  File \"/srv/app/checkout/api.py\", line 118, in submit\n"
    "    resp = session.post(url, headers={\"Authorization\": \"Bearer "
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_"
    "XgL0n3I9PlFUP0THsR8U\"})\n"
    "  File \"/srv/app/lib/http.py\", line 42, in post\n"
    "    raise ConnectionError(f\"{host}: {err}\") trace_id=4bf92f3577b34da6a3ce929d0e0e4736\n";

void BM_RedactException(benchmark::State& state) {
  const quell::core::RedactOptions redact;
  const std::string text = kException;
  for (auto _ : state) benchmark::DoNotOptimize(quell::core::Redact(text, redact));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_RedactException);

void BM_RedactShortField(benchmark::State& state) {
  const quell::core::RedactOptions redact;
  const std::string text = "Generated error 12345";
  for (auto _ : state) benchmark::DoNotOptimize(quell::core::Redact(text, redact));
}
BENCHMARK(BM_RedactShortField);

}  // namespace

BENCHMARK_MAIN();
