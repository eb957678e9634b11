// Durable apply of one poll of N keys against the raw ceiling measured in the same run.
//
//   store_apply_bench --backend sqlite|postgres --keys N [--url URL] [--dir DIR] [--chunk C]
//
// Ceiling: plain prepared upserts of the same incident rows (same 20 columns) into an empty
// table in one transaction, no quell logic. SQLite: one prepared INSERT ... ON CONFLICT DO
// UPDATE per row. PostgreSQL: one prepared unnest() upsert per C rows (per-row round trips
// would make the ceiling, not quell, slow). Then quell's PollApplier applies, on a fresh store:
//   open     every key new and unhealthy: incident + decision + outbox row per key
//   update   the same keys unhealthy again inside the cooldown: incident + decision per key
//   stale    the update poll again: every key unchanged (the cost of a key that did not change)
// Prints one line per phase and the process's peak RSS.
#include <libpq-fe.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/app/poll_applier.h"

namespace {

using Clock = std::chrono::steady_clock;
using quell::core::WallTime;

constexpr const char* kColumns =
    "key, condition, generation, status, version, opened_at, first_seen_at, last_seen_at,"
    " last_observed_at, last_notified_at, resolved_at, healthy_streak, event_count,"
    " renotify_count, flap_bits, flap_count, flapping, acked_at, acked_by, recent_evidence";
constexpr const char* kCreate =
    "CREATE TABLE ceiling (key TEXT PRIMARY KEY, condition TEXT NOT NULL, generation BIGINT NOT"
    " NULL, status TEXT NOT NULL, version BIGINT NOT NULL, opened_at BIGINT, first_seen_at"
    " BIGINT, last_seen_at BIGINT, last_observed_at BIGINT, last_notified_at BIGINT, resolved_at"
    " BIGINT, healthy_streak BIGINT NOT NULL, event_count BIGINT NOT NULL, renotify_count BIGINT"
    " NOT NULL, flap_bits BIGINT NOT NULL, flap_count BIGINT NOT NULL, flapping BIGINT NOT NULL,"
    " acked_at BIGINT, acked_by TEXT NOT NULL, recent_evidence TEXT NOT NULL)";
constexpr const char* kUpdateSet =
    " ON CONFLICT (key) DO UPDATE SET condition = excluded.condition, generation ="
    " excluded.generation, status = excluded.status, version = excluded.version, opened_at ="
    " excluded.opened_at, first_seen_at = excluded.first_seen_at, last_seen_at ="
    " excluded.last_seen_at, last_observed_at = excluded.last_observed_at, last_notified_at ="
    " excluded.last_notified_at, resolved_at = excluded.resolved_at, healthy_streak ="
    " excluded.healthy_streak, event_count = excluded.event_count, renotify_count ="
    " excluded.renotify_count, flap_bits = excluded.flap_bits, flap_count = excluded.flap_count,"
    " flapping = excluded.flapping, acked_at = excluded.acked_at, acked_by = excluded.acked_by,"
    " recent_evidence = excluded.recent_evidence";

std::string Key(size_t i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "tenant-1:errors:grp-%08zu", i);
  return buf;
}

const char kEvidence[] = R"({"count":12,"title":"TypeError in handler"})";
constexpr int64_t kBaseMicros = 1'796'202'000'000'000;  // 2026-12-02T09:00:00Z

// N observations generated on the fly, so the input itself costs no memory.
class SyntheticPoll : public quell::core::ObservationStream {
 public:
  SyntheticPoll(size_t keys, int minute) : keys_(keys), minute_(minute) {}
  quell::core::Result<bool> Next(quell::core::Observation& out) override {
    if (next_ >= keys_) return false;
    out.key = Key(next_++);
    out.at = WallTime(std::chrono::microseconds(kBaseMicros) + std::chrono::minutes(minute_));
    out.health = quell::core::Health::kUnhealthy;
    out.condition = "errors";
    out.evidence = kEvidence;
    return true;
  }
  quell::core::Status Rewind() override {
    next_ = 0;
    return {};
  }

 private:
  size_t keys_;
  int minute_;
  size_t next_ = 0;
};

class CountingSink : public quell::app::DecisionSink {
 public:
  void OnDecision(const quell::core::Observation&, const quell::core::Decision&) override { ++n; }
  void Reset() override { n = 0; }
  size_t n = 0;
};

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

void Die(const std::string& message) {
  std::fprintf(stderr, "store_apply_bench: %s\n", message.c_str());
  std::exit(1);
}

std::string IdempotencyLike(size_t i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "q1-%032zx", i * 2654435761U);
  return buf;
}

// A payload of the size quell writes, without building it from an incident.
std::string PayloadLike(const std::string& key) {
  return R"({"key":")" + key +
         R"(","condition":"errors","generation":1,"version":1,"transition":"open","status":"open","opened_at":"2026-12-02T09:00:00Z","first_seen_at":"2026-12-02T09:00:00Z","last_seen_at":"2026-12-02T09:00:00Z","event_count":1,"evidence":[{"count":12,"title":"TypeError in handler"}]})";
}

constexpr const char* kDecisionSql =
    "INSERT INTO decisions (key, version, generation, poll_id, at, decision, reason)"
    " VALUES (?,?,?,?,?,?,?) ON CONFLICT (key, version) DO UPDATE SET at = excluded.at";
constexpr const char* kOutboxSql =
    "INSERT INTO outbox (idempotency_key, key, generation, version, transition, channel,"
    " payload, status, attempts, next_attempt_at, lease_owner, lease_expires_at, last_error,"
    " remote_message_id, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
    " ON CONFLICT (idempotency_key) DO UPDATE SET updated_at = excluded.updated_at";

void BindText(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

// Plain prepared upserts into a fresh quell schema (same tables, same indexes): the incident
// rows only, or also the decision and outbox rows quell writes for an open poll.
double SqliteCeiling(const std::string& path, size_t keys, bool all_rows) {
  {
    auto schema = quell::sqlite::SqliteIncidentStore::Open(path);
    if (!schema) Die(schema.error().message);
  }
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) Die("cannot open " + path);
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536",
               nullptr, nullptr, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_stmt* decision = nullptr;
  sqlite3_stmt* outbox = nullptr;
  const std::string sql = std::string("INSERT INTO incidents (") + kColumns +
                          ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)" + kUpdateSet;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(db, kDecisionSql, -1, &decision, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(db, kOutboxSql, -1, &outbox, nullptr) != SQLITE_OK) {
    Die(sqlite3_errmsg(db));
  }
  const auto start = Clock::now();
  sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  const std::string evidence = std::string("[") + kEvidence + "]";
  for (size_t i = 0; i < keys; ++i) {
    const std::string key = Key(i);
    BindText(stmt, 1, key);
    sqlite3_bind_text(stmt, 2, "errors", 6, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 3, 1);
    sqlite3_bind_text(stmt, 4, "open", 4, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 5, 1);
    for (int c = 6; c <= 10; ++c) sqlite3_bind_int64(stmt, c, kBaseMicros);
    sqlite3_bind_null(stmt, 11);
    sqlite3_bind_int64(stmt, 12, 0);
    sqlite3_bind_int64(stmt, 13, 1);
    for (int c = 14; c <= 17; ++c) sqlite3_bind_int64(stmt, c, 0);
    sqlite3_bind_null(stmt, 18);
    sqlite3_bind_text(stmt, 19, "", 0, SQLITE_STATIC);
    BindText(stmt, 20, evidence);
    if (sqlite3_step(stmt) != SQLITE_DONE) Die(sqlite3_errmsg(db));
    sqlite3_reset(stmt);
    if (!all_rows) continue;
    BindText(decision, 1, key);
    sqlite3_bind_int64(decision, 2, 1);
    sqlite3_bind_int64(decision, 3, 1);
    sqlite3_bind_text(decision, 4, "bench-open", -1, SQLITE_STATIC);
    sqlite3_bind_int64(decision, 5, kBaseMicros);
    sqlite3_bind_text(decision, 6, "notify", -1, SQLITE_STATIC);
    sqlite3_bind_text(decision, 7, "open", -1, SQLITE_STATIC);
    if (sqlite3_step(decision) != SQLITE_DONE) Die(sqlite3_errmsg(db));
    sqlite3_reset(decision);
    BindText(outbox, 1, IdempotencyLike(i));
    BindText(outbox, 2, key);
    sqlite3_bind_int64(outbox, 3, 1);
    sqlite3_bind_int64(outbox, 4, 1);
    sqlite3_bind_text(outbox, 5, "open", -1, SQLITE_STATIC);
    sqlite3_bind_text(outbox, 6, "default", -1, SQLITE_STATIC);
    BindText(outbox, 7, PayloadLike(key));
    sqlite3_bind_text(outbox, 8, "pending", -1, SQLITE_STATIC);
    sqlite3_bind_int64(outbox, 9, 0);
    sqlite3_bind_int64(outbox, 10, kBaseMicros);
    sqlite3_bind_text(outbox, 11, "", 0, SQLITE_STATIC);
    sqlite3_bind_null(outbox, 12);
    sqlite3_bind_text(outbox, 13, "", 0, SQLITE_STATIC);
    sqlite3_bind_text(outbox, 14, "", 0, SQLITE_STATIC);
    sqlite3_bind_int64(outbox, 15, kBaseMicros);
    sqlite3_bind_int64(outbox, 16, kBaseMicros);
    if (sqlite3_step(outbox) != SQLITE_DONE) Die(sqlite3_errmsg(db));
    sqlite3_reset(outbox);
  }
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  const double seconds = Seconds(start);
  sqlite3_finalize(stmt);
  sqlite3_finalize(decision);
  sqlite3_finalize(outbox);
  sqlite3_close(db);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return seconds;
}

void PgExec(PGconn* conn, const std::string& sql) {
  PGresult* r = PQexec(conn, sql.c_str());
  if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
    Die(PQresultErrorMessage(r));
  }
  PQclear(r);
}

PGconn* PgConnect(const std::string& url) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) != CONNECTION_OK) Die(PQerrorMessage(conn));
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  return conn;
}

std::string ArrayOf(size_t n, const std::string& element) {
  std::string out = "{";
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    out += element;
  }
  return out + "}";
}

std::string QuotedArray(size_t first, size_t n, std::string (*make)(size_t)) {
  std::string out = "{";
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    out += '"';
    for (char c : make(first + i)) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

void PgRun(PGconn* conn, const char* name, const std::vector<std::string>& p) {
  std::vector<const char*> values;
  for (const auto& v : p) values.push_back(v.c_str());
  PGresult* r = PQexecPrepared(conn, name, static_cast<int>(values.size()), values.data(), nullptr,
                               nullptr, 0);
  if (PQresultStatus(r) != PGRES_COMMAND_OK) Die(PQresultErrorMessage(r));
  PQclear(r);
}

void PgPrepare(PGconn* conn, const char* name, const std::string& sql) {
  PGresult* prepared = PQprepare(conn, name, sql.c_str(), 0, nullptr);
  if (PQresultStatus(prepared) != PGRES_COMMAND_OK) Die(PQresultErrorMessage(prepared));
  PQclear(prepared);
}

// The same on PostgreSQL, one prepared unnest() upsert per `chunk` rows and table, into a
// fresh quell schema: `schema`, which the URL's search_path selects.
double PgCeiling(const std::string& url, const std::string& schema_name, size_t keys, size_t chunk,
                 bool all_rows) {
  {
    auto schema = quell::postgres::PgIncidentStore::Open(url);
    if (!schema) Die(schema.error().message);
  }
  PGconn* conn = PgConnect(url);
  PgPrepare(conn, "incidents",
            std::string("INSERT INTO incidents (") + kColumns +
                ") SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[],"
                " $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[],"
                " $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[],"
                " $15::bigint[], $16::bigint[], $17::bigint[], $18::bigint[], $19::text[],"
                " $20::text[])" +
                kUpdateSet);
  PgPrepare(conn, "decisions",
            "INSERT INTO decisions (key, version, generation, poll_id, at, decision, reason)"
            " SELECT k, 1, 1, 'bench-open', $2, 'notify', 'open' FROM unnest($1::text[]) AS k"
            " ON CONFLICT (key, version) DO UPDATE SET at = excluded.at");
  PgPrepare(conn, "outbox",
            "INSERT INTO outbox (idempotency_key, key, generation, version, transition, channel,"
            " payload, status, attempts, next_attempt_at, lease_owner, lease_expires_at,"
            " last_error, remote_message_id, created_at, updated_at) SELECT i, k, 1, 1, 'open',"
            " 'default', p, 'pending', 0, $4, '', NULL, '', '', $4, $4 FROM unnest($1::text[],"
            " $2::text[], $3::text[]) AS u(i, k, p) ON CONFLICT (idempotency_key) DO UPDATE SET"
            " updated_at = excluded.updated_at");
  const auto start = Clock::now();
  PgExec(conn, "BEGIN");
  const std::string at = std::to_string(kBaseMicros);
  for (size_t first = 0; first < keys; first += chunk) {
    const size_t n = std::min(chunk, keys - first);
    const std::string key_array = QuotedArray(first, n, Key);
    PgRun(conn, "incidents",
          {key_array,
           ArrayOf(n, "errors"),
           ArrayOf(n, "1"),
           ArrayOf(n, "open"),
           ArrayOf(n, "1"),
           ArrayOf(n, at),
           ArrayOf(n, at),
           ArrayOf(n, at),
           ArrayOf(n, at),
           ArrayOf(n, at),
           ArrayOf(n, "NULL"),
           ArrayOf(n, "0"),
           ArrayOf(n, "1"),
           ArrayOf(n, "0"),
           ArrayOf(n, "0"),
           ArrayOf(n, "0"),
           ArrayOf(n, "0"),
           ArrayOf(n, "NULL"),
           ArrayOf(n, "\"\""),
           ArrayOf(n, R"("[{\"count\":12,\"title\":\"TypeError in handler\"}]")")});
    if (!all_rows) continue;
    PgRun(conn, "decisions", {key_array, at});
    PgRun(conn, "outbox",
          {QuotedArray(first, n, IdempotencyLike), key_array,
           QuotedArray(first, n, [](size_t i) { return PayloadLike(Key(i)); }), at});
  }
  PgExec(conn, "COMMIT");
  const double seconds = Seconds(start);
  // The whole schema, not a list of its tables: a table added by a later migration would
  // outlive the list, and the next Open would fail creating it again.
  PgExec(conn, "DROP SCHEMA " + schema_name + " CASCADE; CREATE SCHEMA " + schema_name);
  PQfinish(conn);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "sqlite", url, dir = "/tmp";
  size_t keys = 1000, chunk = 5000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--backend") backend = value;
    if (flag == "--keys") keys = std::stoul(value);
    if (flag == "--url") url = value;
    if (flag == "--dir") dir = value;
    if (flag == "--chunk") chunk = std::stoul(value);
  }

  std::unique_ptr<quell::core::IncidentStore> store;
  double ceiling_incidents = 0;
  double ceiling_all = 0;
  const std::string tag = std::to_string(getpid());
  if (backend == "sqlite") {
    const std::string store_path = dir + "/quell-" + tag + ".db";
    ceiling_incidents = SqliteCeiling(dir + "/ceiling1-" + tag + ".db", keys, false);
    ceiling_all = SqliteCeiling(dir + "/ceiling3-" + tag + ".db", keys, true);
    auto opened = quell::sqlite::SqliteIncidentStore::Open(store_path);
    if (!opened) Die(opened.error().message);
    store = std::move(*opened);
    dir = store_path;  // removed at the end
  } else {
    if (url.empty()) Die("--url is required for postgres");
    // A private schema keeps runs apart; the URL's search_path selects it.
    PGconn* conn = PgConnect(url);
    const std::string schema_name = "bench_" + tag;
    PgExec(conn, "DROP SCHEMA IF EXISTS " + schema_name + " CASCADE; CREATE SCHEMA " + schema_name);
    PQfinish(conn);
    url += url.find('?') == std::string::npos ? '?' : '&';
    url += "options=-csearch_path%3D" + schema_name;
    ceiling_incidents = PgCeiling(url, schema_name, keys, chunk, false);
    ceiling_all = PgCeiling(url, schema_name, keys, chunk, true);
    auto opened = quell::postgres::PgIncidentStore::Open(url);
    if (!opened) Die(opened.error().message);
    store = std::move(*opened);
  }
  const double ceiling = ceiling_all;

  quell::jsonl::JsonPayloadEncoder encoder;
  quell::app::ApplyOptions options;
  options.chunk_observations = chunk;
  quell::app::PollApplier applier(*store, encoder, options);
  const WallTime now(std::chrono::microseconds(kBaseMicros) + std::chrono::hours(1));
  std::printf("%-8s keys=%-8zu ceiling, incident rows only   %8.3f s  %10.0f keys/s\n",
              backend.c_str(), keys, ceiling_incidents,
              static_cast<double>(keys) / ceiling_incidents);
  std::printf("%-8s keys=%-8zu ceiling, all rows of an open  %8.3f s  %10.0f keys/s\n",
              backend.c_str(), keys, ceiling_all, static_cast<double>(keys) / ceiling_all);
  const struct {
    const char* name;
    int minute;
  } phases[] = {{"open", 0}, {"update", 1}, {"stale", 1}};
  for (const auto& phase : phases) {
    SyntheticPoll poll(keys, phase.minute);
    CountingSink sink;
    const auto start = Clock::now();
    auto summary = applier.Apply(poll, std::string("bench-") + phase.name, now, sink);
    const double seconds = Seconds(start);
    if (!summary) Die(summary.error().message);
    std::printf(
        "%-8s keys=%-8zu %-7s %8.3f s  %10.0f keys/s  %5.1f%% of all-rows ceiling  %5.1f%% of "
        "incident-rows ceiling  changed=%llu\n",
        backend.c_str(), keys, phase.name, seconds, static_cast<double>(keys) / seconds,
        100.0 * ceiling / seconds, 100.0 * ceiling_incidents / seconds,
        static_cast<unsigned long long>(summary->poll.changed));
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%-8s keys=%-8zu peak RSS %.1f MB\n", backend.c_str(), keys,
              static_cast<double>(usage.ru_maxrss) / 1024.0);
  store.reset();
  if (backend == "sqlite") {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(dir + suffix);
  } else {
    PGconn* conn = PQconnectdb(url.c_str());
    PQsetNoticeProcessor(
        conn, [](void*, const char*) {}, nullptr);
    PgExec(conn, "DROP SCHEMA bench_" + tag + " CASCADE");
    PQfinish(conn);
  }
  return 0;
}
