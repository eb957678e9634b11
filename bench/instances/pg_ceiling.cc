#include "pg_ceiling.h"

#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace quell::bench {
namespace {

using Steady = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "instances_bench: ceiling: %s\n", message.c_str());
  std::exit(1);  // NOLINT(concurrency-mt-unsafe): a bench stops at its first failure
}

double Since(Steady::time_point start) {
  return std::chrono::duration<double>(Steady::now() - start).count();
}

PGconn* Connect(const std::string& url) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) != CONNECTION_OK) Die(PQerrorMessage(conn));
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  return conn;
}

// Runs `sql`; returns the rows it returned (the first column), if any.
std::vector<std::string> Exec(PGconn* conn, const std::string& sql) {
  PGresult* r = PQexec(conn, sql.c_str());
  const ExecStatusType status = PQresultStatus(r);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    const std::string message = PQresultErrorMessage(r);
    PQclear(r);
    Die(message);
  }
  std::vector<std::string> rows;
  for (int i = 0; i < PQntuples(r); ++i) rows.emplace_back(PQgetvalue(r, i, 0));
  PQclear(r);
  return rows;
}

// Row bodies about the size quell writes for an opening poll: the incident's columns with its
// evidence, a decision line, an outbox payload.
const std::string kIncidentBody(280, 'i');
const std::string kDecisionBody(40, 'd');
const std::string kOutboxBody(300, 'o');

// Runs fn(instance, conn) on one thread and connection per instance; returns the wall time.
template <typename Fn>
double OnEveryInstance(const std::string& url, size_t instances, Fn fn) {
  std::vector<PGconn*> conns;
  for (size_t i = 0; i < instances; ++i) conns.push_back(Connect(url));
  const auto start = Steady::now();
  std::vector<std::thread> threads;
  for (size_t i = 0; i < instances; ++i) threads.emplace_back([&, i] { fn(i, conns[i]); });
  for (std::thread& t : threads) t.join();
  const double seconds = Since(start);
  for (PGconn* conn : conns) PQfinish(conn);
  return seconds;
}

}  // namespace

CeilingResult InsertCeiling(const std::string& url, const Workload& work) {
  PGconn* admin = Connect(url);
  Exec(admin,
       "DROP TABLE IF EXISTS ceiling_rows; CREATE TABLE ceiling_rows (key TEXT NOT NULL, kind INT"
       " NOT NULL, body TEXT NOT NULL, PRIMARY KEY (key, kind))");
  const size_t instances = work.keys_of.size();
  std::vector<std::vector<double>> latencies(instances);
  std::atomic<size_t> rows{0};
  const double seconds = OnEveryInstance(url, instances, [&](size_t i, PGconn* conn) {
    for (const std::vector<std::string>& shard : work.keys_of[i]) {
      const auto start = Steady::now();
      Exec(conn, "BEGIN");
      std::string sql;
      size_t in_statement = 0;
      for (size_t k = 0; k < shard.size(); ++k) {
        for (const auto& [kind, body] : {std::pair{0, &kIncidentBody}, std::pair{1, &kDecisionBody},
                                         std::pair{2, &kOutboxBody}}) {
          sql += in_statement == 0 ? "INSERT INTO ceiling_rows VALUES " : ",";
          sql += "('" + shard[k] + "'," + std::to_string(kind) + ",'" + *body + "')";
          ++in_statement;
        }
        if (in_statement >= 1000 || k + 1 == shard.size()) {
          Exec(conn, sql);
          rows += in_statement;
          sql.clear();
          in_statement = 0;
        }
      }
      Exec(conn, "COMMIT");
      latencies[i].push_back(Since(start));
    }
  });
  Exec(admin, "DROP TABLE ceiling_rows");
  PQfinish(admin);
  CeilingResult result{.rows = rows, .seconds = seconds, .transaction_s = {}};
  for (const auto& l : latencies)
    result.transaction_s.insert(result.transaction_s.end(), l.begin(), l.end());
  return result;
}

CeilingResult ClaimCeiling(const std::string& url, const Workload& work, size_t batch) {
  PGconn* admin = Connect(url);
  Exec(admin,
       "DROP TABLE IF EXISTS ceiling_outbox; CREATE TABLE ceiling_outbox (key TEXT PRIMARY KEY,"
       " status INT NOT NULL, due BIGINT NOT NULL, owner TEXT NOT NULL, payload TEXT NOT NULL);"
       " CREATE INDEX ceiling_outbox_due ON ceiling_outbox (status, due)");
  std::string sql;
  size_t n = 0;
  for (const auto& shards : work.keys_of) {
    for (const auto& shard : shards) {
      for (const std::string& key : shard) {
        sql += n++ % 1000 == 0 ? ";INSERT INTO ceiling_outbox VALUES " : ",";
        sql += "('" + key + "',0," + std::to_string(n) + ",'','" + kOutboxBody + "')";
      }
    }
  }
  Exec(admin, "BEGIN" + sql + ";COMMIT");
  Exec(admin, "ANALYZE ceiling_outbox");
  const size_t instances = work.keys_of.size();
  std::vector<std::vector<double>> latencies(instances);
  std::atomic<size_t> rows{0};
  const std::string limit = std::to_string(batch);
  const double seconds = OnEveryInstance(url, instances, [&](size_t i, PGconn* conn) {
    const std::string owner = "'ceiling-" + std::to_string(i) + "'";
    for (;;) {
      const auto start = Steady::now();
      const std::vector<std::string> claimed = Exec(
          conn, "UPDATE ceiling_outbox SET status = 1, owner = " + owner +
                    " WHERE key IN (SELECT key FROM ceiling_outbox WHERE status = 0 ORDER BY due"
                    " LIMIT " +
                    limit + " FOR UPDATE SKIP LOCKED) RETURNING key, payload");
      if (claimed.empty()) break;
      std::string keys = "{";
      for (const std::string& key : claimed) keys += (keys.size() > 1 ? "," : "") + key;
      Exec(conn, "UPDATE ceiling_outbox SET status = 2, owner = '' WHERE owner = " + owner +
                     " AND key = ANY('" + keys + "}')");
      latencies[i].push_back(Since(start));
      rows += claimed.size();
    }
  });
  Exec(admin, "DROP TABLE ceiling_outbox");
  PQfinish(admin);
  CeilingResult result{.rows = rows, .seconds = seconds, .transaction_s = {}};
  for (const auto& l : latencies)
    result.transaction_s.insert(result.transaction_s.end(), l.begin(), l.end());
  return result;
}

}  // namespace quell::bench
