// The operator page's list with 100k incidents in the store (bench/page/run): the server time
// of GET /v1/incidents through the real route handler (http_server::OperatorRoutes over
// app::OperatorQueries and the store's ListIncidentPage), for the first page and for filters,
// and the bytes of each answer and of the page's assets, beside a ceiling measured in the same
// run on the same store: 50 rows read by primary key (FindIncident) and written as JSON, the
// least a 50-row page can cost.
//
//   page_bench --backend sqlite|postgres [--url URL] [--dir DIR] [--incidents 100000]
//              [--reps 30] [--without-triage-index] [--keep]
//
// The store holds --incidents incidents over 20 conditions, 5% open and the rest resolved, each
// with two labels (tenant: 1 of 50, team: 1 of 7), one evidence item and one sent outbox row.
// --without-triage-index drops migration 14's index first, for the before/after figure.
// The page's built-in files (web::PageAssets) are counted with the first page's JSON: what a
// browser opening the list downloads. Prints one line per case: median and p95 of
// --reps calls, answer bytes, and the ratio of the median to the ceiling's median.
#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "quell/adapters/http_server/operator_routes.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/adapters/system/system_clock.h"
#include "quell/adapters/text_output/listing_json.h"
#include "quell/adapters/web/page_assets.h"
#include "quell/core/ports/store.h"

namespace {

namespace core = quell::core;
namespace app = quell::app;
namespace web = quell::web;
using Steady = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "page_bench: %s\n", message.c_str());
  std::exit(1);  // NOLINT(concurrency-mt-unsafe): a bench stops at its first failure
}

struct Flags {
  std::string backend = "sqlite";
  std::string url;
  std::string dir = "/tmp";
  size_t incidents = 100000;
  size_t reps = 30;
  bool without_index = false;
  bool keep = false;  // leave the store behind, to look at the plans
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (name == "--without-triage-index" || name == "--keep") {
      (name == "--keep" ? f.keep : f.without_index) = true;
      continue;
    }
    if (i + 1 >= argc) Die("flag " + name + " needs a value");
    const std::string value = argv[++i];
    if (name == "--backend") {
      f.backend = value;
    } else if (name == "--url") {
      f.url = value;
    } else if (name == "--dir") {
      f.dir = value;
    } else if (name == "--incidents") {
      f.incidents = std::stoul(value);
    } else if (name == "--reps") {
      f.reps = std::stoul(value);
    } else {
      Die("unknown flag " + name);
    }
  }
  if (f.backend != "sqlite" && f.backend != "postgres") Die("--backend sqlite|postgres");
  if (f.backend == "postgres" && f.url.empty()) Die("--url is required for postgres");
  return f;
}

// Runs `sql` with the backend's own client (the bench's only raw SQL: dropping the index).
void RawExec(const Flags& f, const std::string& where, const std::string& sql) {
  if (f.backend == "sqlite") {
    sqlite3* db = nullptr;
    if (sqlite3_open(where.c_str(), &db) != SQLITE_OK) Die("cannot open " + where);
    char* error = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    const std::string message = error != nullptr ? error : "";
    sqlite3_free(error);
    sqlite3_close(db);
    if (rc != SQLITE_OK) Die(sql + ": " + message);
    return;
  }
  PGconn* conn = PQconnectdb(where.c_str());
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  PGresult* r = PQexec(conn, sql.c_str());
  const ExecStatusType status = PQresultStatus(r);
  PQclear(r);
  PQfinish(conn);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) Die("cannot run: " + sql);
}

struct Opened {
  std::optional<core::Store> store;
  std::string where;  // the file, or the URL with the schema's search_path
  std::string schema;
};

Opened OpenStore(const Flags& f) {
  Opened o;
  if (f.backend == "sqlite") {
    o.where = f.dir + "/page-bench.db";
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(o.where + suffix);
    auto opened = quell::sqlite::SqliteIncidentStore::Open(o.where);
    if (!opened) Die(opened.error().message);
    o.store.emplace(std::move(*opened));
  } else {
    // One schema per process, so a smoke run beside a measured one leaves it alone.
    o.schema = "page_bench_" + std::to_string(getpid());
    RawExec(f, f.url, "DROP SCHEMA IF EXISTS " + o.schema + " CASCADE; CREATE SCHEMA " + o.schema);
    o.where = f.url + (f.url.find('?') == std::string::npos ? "?" : "&") +
              "options=-csearch_path%3D" + o.schema;
    auto opened = quell::postgres::PgIncidentStore::Open(o.where);
    if (!opened) Die(opened.error().message);
    o.store.emplace(std::move(*opened));
  }
  return o;
}

std::string KeyOf(size_t i) {
  char key[64];
  std::snprintf(key, sizeof key, "tenant-%02zu:checkout:grp-%06zu", i % 50, i);
  return key;
}

// Writes the incidents and their sent rows in batches of 2000, one transaction each.
void Fill(core::Store& store, size_t n, core::WallTime now) {
  const char* levels[] = {"error", "fatal", "warning"};
  for (size_t start = 0; start < n; start += 2000) {
    std::vector<core::IncidentWrite> writes;
    std::vector<core::OutboxRow> rows;
    for (size_t i = start; i < std::min(n, start + 2000); ++i) {
      core::Incident in;
      in.key = KeyOf(i);
      in.condition = "cond-" + std::to_string(i % 20);
      in.generation = 1;
      in.version = 2;
      in.labels = {{"team", "team-" + std::to_string(i % 7)},
                   {"tenant", "tenant-" + std::to_string(i % 50)}};
      // Spread over the last 30 days, so the orders have work to do.
      const core::WallTime at =
          now - std::chrono::seconds(static_cast<int64_t>((i * 7919) % 2592000));
      in.opened_at = at;
      in.first_seen_at = at;
      in.last_seen_at = at;
      in.last_observed_at = at;
      in.event_count = 3;
      const bool open = i % 20 == 0;
      in.status = open ? core::IncidentStatus::kOpen : core::IncidentStatus::kResolved;
      if (!open) in.resolved_at = at + std::chrono::minutes(30);
      in.recent_evidence = {R"({"group":"g-)" + std::to_string(i) +
                            R"(","title":"TypeError: x is undefined","level":")" + levels[i % 3] +
                            R"(","count":"12"})"};
      writes.push_back({std::move(in), 0});
      core::OutboxRow row;
      row.key = KeyOf(i);
      row.generation = 1;
      row.version = 1;
      row.channel = "webhook";
      row.idempotency_key = core::OutboxIdempotencyKey(row.key, 1, 1, row.channel);
      row.transition = core::TransitionKind::kOpen;
      row.payload = "{}";
      row.status = core::OutboxStatus::kSent;
      row.next_attempt_at = at;
      row.created_at = at;
      row.updated_at = at;
      rows.push_back(std::move(row));
    }
    auto tx = store.incidents().Begin();
    if (!tx) Die(tx.error().message);
    if (auto s = (*tx)->PutIncidents(writes); !s) Die(s.error().message);
    if (auto s = (*tx)->InsertOutbox(rows); !s) Die(s.error().message);
    if (auto s = (*tx)->Commit(); !s) Die(s.error().message);
  }
}

struct Timing {
  double median_ms = 0;
  double p95_ms = 0;
  size_t bytes = 0;
};

template <typename Call>
Timing Measure(size_t reps, const Call& call) {
  std::vector<double> ms;
  size_t bytes = 0;
  call();  // warm: statements prepared, pages cached
  for (size_t r = 0; r < reps; ++r) {
    const auto start = Steady::now();
    bytes = call();
    ms.push_back(std::chrono::duration<double, std::milli>(Steady::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return Timing{ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 95 / 100)], bytes};
}

class NullLog : public core::EventLog {
 public:
  void Log(core::LogLevel, std::string_view, std::initializer_list<core::LogField>) override {}
};

}  // namespace

int main(int argc, char** argv) {
  const Flags f = ParseFlags(argc, argv);
  quell::system::SystemClock clock;
  Opened opened = OpenStore(f);
  core::Store& store = *opened.store;
  const auto fill_start = Steady::now();
  Fill(store, f.incidents, clock.Now());
  std::printf("%s: %zu incidents filled in %.1f s\n", f.backend.c_str(), f.incidents,
              std::chrono::duration<double>(Steady::now() - fill_start).count());
  if (f.without_index) {
    RawExec(f, opened.where, "DROP INDEX incidents_triage");
    std::printf("%s: migration 14's incidents_triage dropped\n", f.backend.c_str());
  }
  if (f.backend == "postgres") RawExec(f, opened.where, "ANALYZE");

  quell::jsonl::JsonPayloadEncoder encoder;
  app::OperatorCommands commands(store.incidents(), store.operators(), encoder);
  app::OperatorQueries queries(store.incidents(), store.operators());
  NullLog log;
  std::vector<app::OpsRoute> routes =
      quell::http_server::OperatorRoutes(commands, queries, clock, log);
  const app::OpsRoute* list = nullptr;
  for (const app::OpsRoute& route : routes) {
    if (route.method == "GET" && route.pattern == "^/v1/incidents$") list = &route;
  }
  if (list == nullptr) Die("no GET /v1/incidents route");

  // The ceiling: 50 rows by primary key, written as the list writes them.
  std::vector<std::string> keys;
  for (size_t i = 0; i < 50 && i < f.incidents; ++i) keys.push_back(KeyOf(i * (f.incidents / 50)));
  const Timing ceiling = Measure(f.reps, [&] {
    std::string body;
    for (const std::string& key : keys) {
      auto found = store.incidents().FindIncident(key);
      if (!found || !*found) Die("ceiling: no " + key);
      body += quell::text_output::ListedIncidentJson(**found, "", 0);
    }
    return body.size();
  });
  std::printf("%-44s median %8.3f ms  p95 %8.3f ms  %8zu bytes\n", "ceiling: 50 rows by key",
              ceiling.median_ms, ceiling.p95_ms, ceiling.bytes);

  const std::vector<std::pair<std::string, std::map<std::string, std::string>>> cases = {
      {"first page order=triage limit=50", {{"order", "triage"}, {"limit", "50"}}},
      {"first page order=key limit=50", {{"limit", "50"}}},
      {"open only order=triage limit=50",
       {{"status", "open"}, {"order", "triage"}, {"limit", "50"}}},
      {"q=grp-0001 order=triage limit=50",
       {{"q", "grp-0001"}, {"order", "triage"}, {"limit", "50"}}},
      {"q=team-3 (labels) order=triage limit=50",
       {{"q", "team=team-3"}, {"order", "triage"}, {"limit", "50"}}},
      {"label=tenant=tenant-7 order=triage limit=50",
       {{"label", "tenant=tenant-7"}, {"order", "triage"}, {"limit", "50"}}},
      {"page 101 order=triage offset=5000 limit=50",
       {{"order", "triage"}, {"offset", "5000"}, {"limit", "50"}}},
  };
  size_t first_page_bytes = 0;
  for (const auto& [name, query] : cases) {
    app::OpsRequest request;
    request.method = "GET";
    request.path = "/v1/incidents";
    request.query = query;
    request.actor = "bench";
    const Timing t = Measure(f.reps, [&] {
      app::OpsResponse response = list->handler(request);
      if (response.status != 200) Die(name + ": " + response.body);
      return response.body.size();
    });
    std::printf("%-44s median %8.3f ms  p95 %8.3f ms  %8zu bytes  x%.1f ceiling\n", name.c_str(),
                t.median_ms, t.p95_ms, t.bytes, t.median_ms / ceiling.median_ms);
    if (first_page_bytes == 0) first_page_bytes = t.bytes;  // the first case: the list's opening
  }

  // What a browser opening the list downloads: the shell, every built-in file, and the first
  // page's JSON (uncompressed: the ops server sends no Content-Encoding).
  size_t asset_total = 0;
  std::string listed;
  for (const web::PageAsset& asset : web::PageAssets()) {
    asset_total += asset.body.size();
    listed += " " + std::string(asset.name) + " " + std::to_string(asset.body.size());
  }
  std::printf("assets:%s; total %zu bytes\n", listed.c_str(), asset_total);
  std::printf("page transfer (assets + first triage page): %zu bytes\n",
              asset_total + first_page_bytes);
  opened.store.reset();
  if (f.keep) return 0;
  if (f.backend == "sqlite") {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(opened.where + suffix);
  } else {
    RawExec(f, f.url, "DROP SCHEMA " + opened.schema + " CASCADE");
  }
  return 0;
}
