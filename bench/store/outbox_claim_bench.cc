// The store side of delivery: how fast one dispatcher can lease rows and record them sent.
//
//   outbox_claim_bench --backend sqlite|postgres --rows N [--url URL] [--dir DIR]
//                      [--batch 256] [--record-every 64] [--backlog B] [--analyze 1]
//                      [--backlog-first 0]
//
// Inserts N due pending rows (one key each) plus B rows not yet due (a backlog backing off,
// which every claim walks past), then loops ClaimDue(batch) -> RecordOutcomes(kSent, in groups
// of record-every) until nothing is due, with no sends in between: the ceiling the store puts
// on dispatch. --backlog-first 1 gives the backlog keys that sort before the due rows' (the
// claim walks rows in key order, so by default it meets the due rows first and stops). Prints
// rows/s for the whole loop and the share of time spent claiming. PostgreSQL: --analyze 1 (the
// default) runs ANALYZE after seeding, as autovacuum would soon; with 0 the planner sees a table it
// has no statistics for and sorts every due row per claim.
#include <libpq-fe.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"

namespace {

using Steady = std::chrono::steady_clock;
namespace core = quell::core;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "outbox_claim_bench: %s\n", message.c_str());
  std::exit(1);
}

void PgExec(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  PGresult* r = PQexec(conn, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  PQfinish(conn);
  if (!ok) Die("cannot run: " + sql);
}

core::OutboxRow Row(size_t i, core::WallTime due, int tenant = 1) {
  char key[64];
  std::snprintf(key, sizeof key, "tenant-%d:errors:grp-%08zu", tenant, i);
  core::OutboxRow row;
  row.key = key;
  row.generation = 1;
  row.version = 1;
  row.channel = "webhook";
  row.idempotency_key = core::OutboxIdempotencyKey(row.key, 1, 1, row.channel);
  row.payload = R"({"key":")" + row.key + R"(","status":"open","event_count":1})";
  row.next_attempt_at = due;
  row.created_at = due;
  row.updated_at = due;
  return row;
}

double Seconds(Steady::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "sqlite", url, dir = "/tmp";
  size_t rows = 10000, batch = 256, record_every = 64, backlog = 0, analyze = 1;
  size_t backlog_first = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--backend") backend = value;
    if (flag == "--rows") rows = std::stoul(value);
    if (flag == "--url") url = value;
    if (flag == "--dir") dir = value;
    if (flag == "--batch") batch = std::stoul(value);
    if (flag == "--record-every") record_every = std::stoul(value);
    if (flag == "--backlog") backlog = std::stoul(value);
    if (flag == "--analyze") analyze = std::stoul(value);
    if (flag == "--backlog-first") backlog_first = std::stoul(value);
  }
  const std::string tag = std::to_string(getpid());
  std::string store_url;
  std::unique_ptr<core::IncidentStore> writer;
  std::unique_ptr<core::OutboxStore> outbox;
  if (backend == "sqlite") {
    store_url = dir + "/outbox-" + tag + ".db";
    auto w = quell::sqlite::SqliteIncidentStore::Open(store_url);
    auto o = quell::sqlite::SqliteIncidentStore::Open(store_url);
    if (!w || !o) Die("cannot open " + store_url);
    writer = std::move(*w);
    outbox = std::move(*o);
  } else {
    if (url.empty()) Die("--url is required for postgres");
    PgExec(url, "DROP SCHEMA IF EXISTS obench_" + tag + " CASCADE; CREATE SCHEMA obench_" + tag);
    store_url = url + (url.find('?') == std::string::npos ? "?" : "&") +
                "options=-csearch_path%3Dobench_" + tag;
    auto w = quell::postgres::PgIncidentStore::Open(store_url);
    auto o = quell::postgres::PgIncidentStore::Open(store_url);
    if (!w || !o) Die("cannot connect");
    writer = std::move(*w);
    outbox = std::move(*o);
  }

  const core::WallTime now =
      std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now());
  {
    std::vector<core::OutboxRow> seed;
    seed.reserve(rows + backlog);
    for (size_t i = 0; i < rows; ++i) seed.push_back(Row(i, now));
    for (size_t i = 0; i < backlog; ++i) {
      seed.push_back(Row(rows + i, now + std::chrono::hours(1), backlog_first != 0 ? 0 : 1));
    }
    auto tx = writer->Begin();
    if (!tx || !(*tx)->InsertOutbox(seed) || !(*tx)->Commit()) Die("cannot seed the outbox");
  }
  if (backend == "postgres" && analyze != 0) {
    PgExec(url, "ANALYZE obench_" + tag + ".outbox");
  }

  Steady::duration claiming{};
  const auto started = Steady::now();
  size_t done = 0;
  for (;;) {
    const auto c0 = Steady::now();
    auto claimed = outbox->ClaimDue("bench", now, std::chrono::seconds(60), batch);
    claiming += Steady::now() - c0;
    if (!claimed) Die(claimed.error().message);
    if (claimed->empty()) break;
    std::vector<core::OutboxOutcome> outcomes;
    for (size_t i = 0; i < claimed->size(); ++i) {
      core::OutboxOutcome o;
      o.idempotency_key = (*claimed)[i].idempotency_key;
      o.remote_message_id = "m";
      outcomes.push_back(std::move(o));
      if (outcomes.size() == record_every || i + 1 == claimed->size()) {
        auto recorded = outbox->RecordOutcomes("bench", outcomes, now);
        if (!recorded) Die(recorded.error().message);
        for (const auto& s : *recorded) {
          if (!s) Die(s.error().message);
        }
        done += outcomes.size();
        outcomes.clear();
      }
    }
  }
  const double total = Seconds(Steady::now() - started);
  if (done != rows) Die("recorded " + std::to_string(done) + " of " + std::to_string(rows));
  std::printf(
      "%-8s rows %zu backlog %zu batch %zu record-every %zu: %.0f rows/s (%.2f s, %.0f%%"
      " claiming)\n",
      backend.c_str(), rows, backlog, batch, record_every, static_cast<double>(rows) / total, total,
      100.0 * Seconds(claiming) / total);
  outbox.reset();
  writer.reset();
  if (backend == "sqlite") {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(store_url + suffix);
  } else {
    PgExec(url, "DROP SCHEMA obench_" + tag + " CASCADE");
  }
  return 0;
}
