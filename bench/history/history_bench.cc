// Whether a line costs the same when the store already holds a long history (issue 33).
//
//   history_bench --backend sqlite|postgres --lines N [--keys K] [--factor F] [--url URL]
//                 [--dir DIR]
//
// Applies a trace of N lines over K keys (default 15), as `quell apply` does (one poll, chunks
// of 5000), to a fresh store, then a trace of F*N lines (default 8) to another fresh store. The
// outbox is never drained: every notification stays pending, as it does while a receiver is
// down. Prints each run's per-line cost and their ratio, F*N's over N's: 1.0 when a line costs
// the same whatever the history, F when the cost grows with it (quadratic apply). The target
// is <= 1.5 on both stores.
#include <libpq-fe.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "../trace_gen.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"

namespace {

using Steady = std::chrono::steady_clock;
namespace core = quell::core;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "history_bench: %s\n", message.c_str());
  std::exit(1);
}

void PgExec(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  PQclear(PQexec(conn, "SET client_min_messages = warning"));  // no NOTICE per dropped table
  PGresult* r = PQexec(conn, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  PQfinish(conn);
  if (!ok) Die("cannot run: " + sql);
}

class NullSink : public quell::app::DecisionSink {
 public:
  void OnDecision(const core::Observation& /*observation*/,
                  const core::Decision& /*decision*/) override {}
  void Reset() override {}
};

struct Run {
  double seconds = 0;
  size_t outbox = 0;
};

// Applies `lines` lines over `keys` keys to a fresh store; the store is removed afterwards.
Run Apply(const std::string& backend, const std::string& url, const std::string& dir, size_t lines,
          size_t keys) {
  const std::string tag = std::to_string(getpid()) + "_" + std::to_string(lines);
  std::string store_url;
  std::unique_ptr<core::IncidentStore> store;
  if (backend == "sqlite") {
    store_url = dir + "/history-" + tag + ".db";
    auto s = quell::sqlite::SqliteIncidentStore::Open(store_url);
    if (!s) Die(s.error().message);
    store = std::move(*s);
  } else {
    if (url.empty()) Die("--url is required for postgres");
    PgExec(url, "DROP SCHEMA IF EXISTS hbench_" + tag + " CASCADE; CREATE SCHEMA hbench_" + tag);
    store_url = url + (url.find('?') == std::string::npos ? "?" : "&") +
                "options=-csearch_path%3Dhbench_" + tag;
    auto s = quell::postgres::PgIncidentStore::Open(store_url);
    if (!s) Die(s.error().message);
    store = std::move(*s);
  }
  const std::vector<core::Observation> trace = quell::bench::MakeTrace(lines, keys);
  quell::jsonl::JsonPayloadEncoder encoder;
  quell::app::PollApplier applier(*store, encoder, quell::app::ApplyOptions{});
  quell::app::VectorObservationStream stream(trace);
  NullSink sink;
  const core::WallTime now = trace.back().at;
  const auto started = Steady::now();
  auto applied = applier.Apply(stream, "history-" + tag, now, sink);
  Run run;
  run.seconds = std::chrono::duration<double>(Steady::now() - started).count();
  if (!applied) Die(applied.error().message);
  auto pending = store->ListOutbox(core::OutboxStatus::kPending);
  if (!pending) Die(pending.error().message);
  run.outbox = pending->size();
  store.reset();
  if (backend == "sqlite") {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(store_url + suffix);
  } else {
    PgExec(url, "DROP SCHEMA hbench_" + tag + " CASCADE");
  }
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "sqlite", url, dir = "/tmp";
  size_t lines = 15000, keys = 15, factor = 8;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--backend") backend = value;
    if (flag == "--lines") lines = std::stoul(value);
    if (flag == "--keys") keys = std::stoul(value);
    if (flag == "--factor") factor = std::stoul(value);
    if (flag == "--url") url = value;
    if (flag == "--dir") dir = value;
  }
  if (lines == 0 || keys == 0 || factor == 0) Die("--lines, --keys and --factor must be > 0");
  const Run small = Apply(backend, url, dir, lines, keys);
  const Run large = Apply(backend, url, dir, lines * factor, keys);
  const double per_small = small.seconds / static_cast<double>(lines) * 1e6;
  const double per_large = large.seconds / static_cast<double>(lines * factor) * 1e6;
  for (const auto& [n, run, per] :
       {std::tuple{lines, small, per_small}, std::tuple{lines * factor, large, per_large}}) {
    std::printf("%-8s apply %7zu lines over %zu keys: %6.2f s, %6.1f us/line, %zu pending\n",
                backend.c_str(), n, keys, run.seconds, per, run.outbox);
  }
  std::printf("%-8s per-line cost ratio %zuN/N: %.2f (target <= 1.5)\n", backend.c_str(), factor,
              per_large / per_small);
  return 0;
}
