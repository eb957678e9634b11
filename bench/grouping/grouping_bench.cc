// 10k keys opening in one poll, with the channel's grouping on and off, in the same run: the
// real PollApplier commits the poll (one transaction), then the real app::Dispatcher
// (WebhookChannel, MustacheRenderer, CurlMultiClient) delivers to a loopback receiver.
//
//   grouping_bench --backend sqlite|postgres [--url URL] [--dir DIR] [--keys 10000]
//                  [--concurrency 16]
//
// For each mode it prints the time from the poll's commit to the last message on the wire
// (off: the last of the keys' own messages; on: the one group message, group_wait 0), the
// dispatcher rounds it took, the outbox rows the poll and the dispatcher wrote, and the bytes
// on the wire; then the ratio of the two times.
#include <libpq-fe.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fast_receiver.h"
#include "quell/adapters/channels/webhook/webhook_channel.h"
#include "quell/adapters/curl/curl_multi_client.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/adapters/system/system_clock.h"
#include "quell/adapters/templates/mustache_renderer.h"
#include "quell/adapters/templates/template_check.h"
#include "quell/app/dispatcher.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"

namespace {

namespace core = quell::core;
using Steady = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "grouping_bench: %s\n", message.c_str());
  std::exit(1);  // NOLINT(concurrency-mt-unsafe): a bench stops at its first failure
}

struct Flags {
  std::string backend = "sqlite";
  std::string url;
  std::string dir = "/tmp";
  size_t keys = 10000;
  size_t concurrency = 16;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i];
    const std::string value = argv[i + 1];
    if (name == "--backend") {
      f.backend = value;
    } else if (name == "--url") {
      f.url = value;
    } else if (name == "--dir") {
      f.dir = value;
    } else if (name == "--keys") {
      f.keys = std::stoul(value);
    } else if (name == "--concurrency") {
      f.concurrency = std::stoul(value);
    } else {
      Die("unknown flag " + name);
    }
  }
  if (f.backend != "sqlite" && f.backend != "postgres") Die("--backend sqlite|postgres");
  if (f.backend == "postgres" && f.url.empty()) Die("--url is required for postgres");
  return f;
}

// One store per mode: a fresh SQLite file, or a fresh PostgreSQL schema.
struct Store {
  std::unique_ptr<core::IncidentStore> incidents;
  core::OutboxStore* outbox = nullptr;
  std::string path;    // sqlite
  std::string schema;  // postgres
  std::string url;     // postgres, with the schema's search_path
};

void PgExec(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  PGresult* r = PQexec(conn, sql.c_str());
  const ExecStatusType status = PQresultStatus(r);
  PQclear(r);
  PQfinish(conn);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) Die("cannot run: " + sql);
}

Store OpenStore(const Flags& f, const std::string& mode) {
  Store s;
  if (f.backend == "sqlite") {
    s.path = f.dir + "/grouping-bench-" + mode + ".db";
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(s.path + suffix);
    auto opened = quell::sqlite::SqliteIncidentStore::Open(s.path);
    if (!opened) Die(opened.error().message);
    s.outbox = opened->get();
    s.incidents = std::move(*opened);
  } else {
    s.schema = "grouping_bench_" + mode;
    PgExec(f.url, "DROP SCHEMA IF EXISTS " + s.schema + " CASCADE; CREATE SCHEMA " + s.schema);
    s.url = f.url + (f.url.find('?') == std::string::npos ? "?" : "&") +
            "options=-csearch_path%3D" + s.schema;
    auto opened = quell::postgres::PgIncidentStore::Open(s.url);
    if (!opened) Die(opened.error().message);
    s.outbox = opened->get();
    s.incidents = std::move(*opened);
  }
  return s;
}

void CloseStore(const Flags& f, Store& s) {
  s.incidents.reset();
  if (f.backend == "sqlite") {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(s.path + suffix);
  } else {
    PgExec(f.url, "DROP SCHEMA " + s.schema + " CASCADE");
  }
}

// The outbox's rows: read with the backend's own client, as a user would count them.
uint64_t OutboxRows(const Flags& f, const Store& s) {
  const char* sql = "SELECT count(*) FROM outbox";
  if (f.backend == "sqlite") {
    sqlite3* db = nullptr;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_open_v2(s.path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK ||
        sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK ||
        sqlite3_step(stmt) != SQLITE_ROW) {
      Die("cannot count the outbox rows");
    }
    const auto n = static_cast<uint64_t>(sqlite3_column_int64(stmt, 0));
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return n;
  }
  PGconn* conn = PQconnectdb(s.url.c_str());
  PGresult* r = PQexec(conn, sql);
  if (PQresultStatus(r) != PGRES_TUPLES_OK) Die("cannot count the outbox rows");
  const uint64_t n = std::stoull(PQgetvalue(r, 0, 0));
  PQclear(r);
  PQfinish(conn);
  return n;
}

// A realistic unhealthy observation: tenant and stage labels, an error group's evidence.
std::vector<core::Observation> OnePoll(size_t keys, core::WallTime at) {
  std::vector<core::Observation> poll;
  poll.reserve(keys);
  for (size_t i = 0; i < keys; ++i) {
    const std::string tenant = "tenant-" + std::to_string(i);
    core::Observation o;
    o.key = tenant + ":model-answer:grp-1";
    o.at = at;
    o.health = core::Health::kUnhealthy;
    o.condition = "model-answer";
    o.evidence = R"({"title":"Upstream model provider returned 503","level":"error","count":12,)"
                 R"("last_seen":"2026-12-04T01:00:00Z","message":"provider unavailable"})";
    o.labels = {{"stage", "answer"}, {"tenant", tenant}};
    poll.push_back(std::move(o));
  }
  return poll;
}

class NoSink : public quell::app::DecisionSink {
 public:
  void OnDecision(const core::Observation&, const core::Decision&) override {}
  void Reset() override {}
};

quell::templates::RendererOptions RendererSettings() {
  quell::templates::RendererOptions options;
  options.channels.emplace(
      "hook", quell::templates::ChannelTemplates{.type = "webhook", .subject = "", .body = ""});
  if (auto ok = quell::templates::CheckTemplates(options); !ok) Die(ok.error().message);
  return options;
}

struct ModeResult {
  double commit_s = 0;   // the poll's apply, commit included
  double to_wire_s = 0;  // commit -> the last expected message at the receiver
  size_t rounds = 0;     // dispatcher rounds
  size_t messages = 0;   // at the receiver
  uint64_t rows = 0;     // outbox rows written
  uint64_t bytes = 0;    // request bodies at the receiver
};

ModeResult RunMode(const Flags& f, bool grouped) {
  Store store = OpenStore(f, grouped ? "on" : "off");
  quell::bench::FastReceiver receiver;
  quell::jsonl::JsonPayloadEncoder encoder;
  quell::app::ApplyOptions apply;
  apply.channels = {"hook"};
  core::GroupPolicy policy{.group_by = {"condition"},
                           .group_wait = std::chrono::seconds(0),
                           .group_interval = std::chrono::minutes(5)};
  if (grouped) apply.grouping.emplace("hook", policy);
  quell::app::PollApplier applier(*store.incidents, encoder, apply);

  quell::system::SystemClock clock;
  const std::vector<core::Observation> poll = OnePoll(f.keys, clock.Now());
  quell::app::VectorObservationStream stream(poll);
  NoSink sink;
  ModeResult result;
  const auto start = Steady::now();
  auto summary = applier.Apply(stream, "bench-poll", clock.Now(), sink);
  if (!summary) Die(summary.error().message);
  const auto committed = Steady::now();
  const core::WallTime committed_wall = quell::bench::FastReceiver::Now();
  result.commit_s = std::chrono::duration<double>(committed - start).count();

  quell::templates::MustacheRenderer renderer(RendererSettings());
  auto channel = quell::channels::WebhookChannel::Create(
      {.url = receiver.Url(), .secret = "bench-secret-0123456789", .timeouts = {}});
  if (!channel) Die(channel.error().message);
  quell::curl::CurlOptions curl;
  curl.max_idle_handles = 8 + f.concurrency;
  quell::curl::CurlMultiClient http(curl);
  quell::app::DispatcherOptions options;
  options.owner = "bench";
  quell::app::Dispatcher dispatcher(*store.outbox, renderer, http, clock, options);
  quell::app::ChannelLimits limits;
  limits.concurrency = static_cast<uint32_t>(f.concurrency);
  if (grouped) limits.grouping = policy;
  dispatcher.AddHttpChannel("hook", "webhook", **channel, limits);

  const size_t expected = grouped ? 1 : f.keys;
  const auto deadline = committed + std::chrono::minutes(5);
  while (receiver.Count() < expected) {
    if (Steady::now() > deadline) Die("not everything was delivered in time");
    const quell::app::DispatchReport report = dispatcher.RunOnce();
    for (const std::string& e : report.errors) Die(e);
    ++result.rounds;
  }
  result.to_wire_s = std::chrono::duration<double>(receiver.LastArrival() - committed_wall).count();
  result.messages = receiver.Count();
  result.bytes = receiver.Bytes();
  result.rows = OutboxRows(f, store);
  CloseStore(f, store);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = ParseFlags(argc, argv);
  const ModeResult off = RunMode(f, false);
  const ModeResult on = RunMode(f, true);
  for (const auto& [name, r] : {std::pair{"off", off}, std::pair{"on", on}}) {
    std::printf(
        "%-8s keys=%-6zu grouping %-3s  commit %7.3f s  commit->wire %7.3f s  rounds %4zu  "
        "messages %6zu  outbox rows %6llu  bytes %9llu\n",
        f.backend.c_str(), f.keys, name, r.commit_s, r.to_wire_s, r.rounds, r.messages,
        static_cast<unsigned long long>(r.rows), static_cast<unsigned long long>(r.bytes));
  }
  std::printf("%-8s keys=%-6zu on/off: commit %.2f, commit->wire %.3f\n", f.backend.c_str(), f.keys,
              on.commit_s / off.commit_s, on.to_wire_s / off.to_wire_s);
  if (on.messages != 1 || off.messages != f.keys) Die("unexpected message counts");
  return 0;
}
