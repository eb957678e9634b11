// End-to-end delivery: the real app::Dispatcher (WebhookChannel, MustacheRenderer,
// CurlMultiClient) against a fast in-process loopback webhook receiver, on SQLite or PostgreSQL.
//
//   dispatch_bench --mode throughput --backend sqlite|postgres [--url URL] [--dir DIR]
//                  [--rows 100000] [--concurrency 16] [--batch 256] [--ceiling-rows N]
//                  [--prepare-threads 2] [--claim-ahead 1|0] [--record-every 256]
//                  [--batches-per-round 16]
//   dispatch_bench --mode latency --backend sqlite|postgres [--url URL] [--dir DIR]
//                  [--rate 1000] [--seconds 10] [--concurrency 16] [--idle-ms 1000]
//                  [--per-commit 1]
//
// throughput: seeds N due outbox rows (one open each, a realistic snapshot payload) and runs
// RunOnce until every row is sent; prints sends/s, where the dispatcher's time went, and the
// ceiling: CurlMultiClient alone POSTing the same signed bodies at the same concurrency to the
// same receiver, and the ratio of the two.
// latency: a writer thread commits outbox rows (--per-commit to a transaction, like a poll's
// commit; one by default) at a steady --rate while the dispatcher loops as `quell dispatch`
// does (RunOnce; again at once when the claim was full, else sleeps --idle-ms, whose default
// is quell's dispatch.idle_interval); prints p50/p99/max from each row's commit to its arrival
// at the receiver.
#include <libpq-fe.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fast_receiver.h"
#include "quell/adapters/channels/webhook/webhook_channel.h"
#include "quell/adapters/curl/curl_multi_client.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/adapters/system/system_clock.h"
#include "quell/adapters/templates/mustache_renderer.h"
#include "quell/app/dispatcher.h"

namespace {

using Steady = std::chrono::steady_clock;
namespace core = quell::core;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "dispatch_bench: %s\n", message.c_str());
  std::exit(1);  // NOLINT(concurrency-mt-unsafe): a bench stops at its first failure
}

double Seconds(Steady::duration d) { return std::chrono::duration<double>(d).count(); }

core::WallTime WallNow() {
  return std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now());
}

void PgExec(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  PGresult* r = PQexec(conn, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  PQfinish(conn);
  if (!ok) Die("cannot run: " + sql);
}

using quell::bench::FastReceiver;

// Where the dispatcher's thread spends its time: each port call it makes, timed.
// A duration several threads add to: the dispatcher renders and encodes on prepare threads.
class SharedDuration {
 public:
  SharedDuration& operator+=(Steady::duration d) {
    ticks_.fetch_add(d.count(), std::memory_order_relaxed);
    return *this;
  }
  operator Steady::duration() const { return Steady::duration(ticks_.load()); }  // NOLINT

 private:
  std::atomic<Steady::rep> ticks_{0};
};

// Render and encode are summed over the prepare threads (CPU time, not wall time).
struct Spent {
  Steady::duration claim{}, record{}, thread{}, decode{};
  SharedDuration render, encode;
};

class TimedStore : public core::OutboxStore {
 public:
  TimedStore(core::OutboxStore& inner, Spent& spent) : inner_(inner), spent_(spent) {}
  core::Result<std::vector<core::OutboxRow>> ClaimDue(std::string_view owner, core::WallTime now,
                                                      core::Duration lease, size_t limit) override {
    const auto t0 = Steady::now();
    auto r = inner_.ClaimDue(owner, now, lease, limit);
    spent_.claim += Steady::now() - t0;
    return r;
  }
  core::Result<std::vector<std::string>> CancelUnwantedTierRows(
      std::string_view owner, std::span<const core::OutboxRow> claimed,
      core::WallTime now) override {
    return inner_.CancelUnwantedTierRows(owner, claimed, now);
  }
  core::Result<std::vector<core::Status>> RecordOutcomes(
      std::string_view owner, std::span<const core::OutboxOutcome> outcomes,
      core::WallTime now) override {
    const auto t0 = Steady::now();
    auto r = inner_.RecordOutcomes(owner, outcomes, now);
    spent_.record += Steady::now() - t0;
    return r;
  }
  core::Result<std::vector<core::WallTime>> SentTimes(std::string_view channel,
                                                      core::WallTime since) override {
    return inner_.SentTimes(channel, since);
  }
  core::Result<std::vector<core::OutboxRow>> FoldedRows(std::string_view channel,
                                                        std::string_view tenant,
                                                        core::WallTime start,
                                                        core::WallTime end) override {
    return inner_.FoldedRows(channel, tenant, start, end);
  }
  core::Result<std::vector<core::OutboxRow>> DeadRows(core::WallTime start,
                                                      core::WallTime end) override {
    return inner_.DeadRows(start, end);
  }
  core::Result<uint64_t> TrimOutbox(core::WallTime cutoff, size_t limit) override {
    return inner_.TrimOutbox(cutoff, limit);
  }
  core::Result<std::string> ThreadRemoteId(std::string_view key, uint64_t generation,
                                           std::string_view channel) override {
    const auto t0 = Steady::now();
    auto r = inner_.ThreadRemoteId(key, generation, channel);
    spent_.thread += Steady::now() - t0;
    return r;
  }
  core::Result<std::vector<core::WaitingGroup>> WaitingGroups() override {
    return inner_.WaitingGroups();
  }
  core::Result<std::optional<core::OutboxRow>> AssembleGroup(
      std::string_view channel, std::string_view group_key, core::WallTime now,
      const core::GroupPlanner& plan) override {
    return inner_.AssembleGroup(channel, group_key, now, plan);
  }
  core::Result<std::vector<core::OutboxRow>> GroupMembers(std::string_view group_row) override {
    return inner_.GroupMembers(group_row);
  }
  core::Result<core::GroupStanding> GroupStandingAt(std::string_view channel,
                                                    std::string_view group_key,
                                                    core::WallTime at) override {
    return inner_.GroupStandingAt(channel, group_key, at);
  }

 private:
  core::OutboxStore& inner_;
  Spent& spent_;
};

class TimedRenderer : public core::MessageRenderer {
 public:
  TimedRenderer(const core::MessageRenderer& inner, Spent& spent) : inner_(inner), spent_(spent) {}
  core::Result<core::RenderedMessage> Render(std::string_view channel_type,
                                             const core::OutboxRow& row) const override {
    const auto t0 = Steady::now();
    auto r = inner_.Render(channel_type, row);
    spent_.render += Steady::now() - t0;
    return r;
  }
  core::Result<core::RenderedMessage> RenderAt(std::string_view channel_type,
                                               const core::OutboxRow& row,
                                               core::WallTime sent_at) const override {
    const auto t0 = Steady::now();
    auto r = inner_.RenderAt(channel_type, row, sent_at);
    spent_.render += Steady::now() - t0;
    return r;
  }
  // Reading the payload (once per row) counts as render, as it did when the render read it.
  core::Result<core::Message> Decode(const core::OutboxRow& row) const override {
    const auto t0 = Steady::now();
    auto r = inner_.Decode(row);
    spent_.render += Steady::now() - t0;
    return r;
  }
  core::Result<core::RenderedMessage> RenderMessage(std::string_view channel_type,
                                                    const core::OutboxRow& row,
                                                    const core::Message& message,
                                                    core::WallTime sent_at) const override {
    const auto t0 = Steady::now();
    auto r = inner_.RenderMessage(channel_type, row, message, sent_at);
    spent_.render += Steady::now() - t0;
    return r;
  }

 private:
  const core::MessageRenderer& inner_;
  Spent& spent_;
};

class TimedChannel : public core::HttpChannel {
 public:
  TimedChannel(const core::HttpChannel& inner, Spent& spent) : inner_(inner), spent_(spent) {}
  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override {
    const auto t0 = Steady::now();
    auto r = inner_.Encode(delivery, now);
    spent_.encode += Steady::now() - t0;
    return r;
  }
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override {
    const auto t0 = Steady::now();
    auto r = inner_.Decode(delivery, response);
    spent_.decode += Steady::now() - t0;
    return r;
  }

 private:
  const core::HttpChannel& inner_;
  Spent& spent_;
};

struct Flags {
  std::string mode = "throughput", backend = "sqlite", url, dir = "/tmp";
  size_t rows = 100000, concurrency = 16, batch = 256, ceiling_rows = 0;
  size_t rate = 1000, seconds = 10, idle_ms = 1000, per_commit = 1;
  size_t prepare_threads = 2;     // DispatcherOptions::prepare_threads
  size_t claim_ahead = 1;         // 1: Dispatcher::ClaimAheadWith a second connection
  size_t record_every = 256;      // DispatcherOptions::record_every
  size_t batches_per_round = 16;  // DispatcherOptions::batches_per_round, as quell dispatch's
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--mode") f.mode = value;
    if (flag == "--backend") f.backend = value;
    if (flag == "--url") f.url = value;
    if (flag == "--dir") f.dir = value;
    if (flag == "--rows") f.rows = std::stoul(value);
    if (flag == "--concurrency") f.concurrency = std::stoul(value);
    if (flag == "--prepare-threads") f.prepare_threads = std::stoul(value);
    if (flag == "--claim-ahead") f.claim_ahead = std::stoul(value);
    if (flag == "--record-every") f.record_every = std::stoul(value);
    if (flag == "--batches-per-round") f.batches_per_round = std::stoul(value);
    if (flag == "--batch") f.batch = std::stoul(value);
    if (flag == "--ceiling-rows") f.ceiling_rows = std::stoul(value);
    if (flag == "--rate") f.rate = std::stoul(value);
    if (flag == "--seconds") f.seconds = std::stoul(value);
    if (flag == "--idle-ms") f.idle_ms = std::stoul(value);
    if (flag == "--per-commit") f.per_commit = std::max<size_t>(1, std::stoul(value));
  }
  if (f.ceiling_rows == 0) f.ceiling_rows = f.rows;
  return f;
}

// Two connections to one fresh store: the writer (seeding, the latency mode's transitions)
// and the dispatcher's.
struct Stores {
  std::unique_ptr<core::IncidentStore> writer;
  std::unique_ptr<core::IncidentStore> dispatcher;
  std::unique_ptr<core::IncidentStore> ahead;   // the dispatcher's claim-ahead connection
  std::unique_ptr<core::IncidentStore> record;  // and its outcomes' (Dispatcher::RecordWith)
  core::OutboxStore* outbox = nullptr;
  core::OutboxStore* ahead_outbox = nullptr;
  core::OutboxStore* record_outbox = nullptr;
  std::string path;  // sqlite: the file, removed afterwards
};

Stores OpenStores(const Flags& f) {
  const std::string tag = f.mode + std::to_string(getpid());
  Stores s;
  std::string url;
  if (f.backend == "sqlite") {
    s.path = f.dir + "/dispatch-" + tag + ".db";
    url = s.path;
    auto w = quell::sqlite::SqliteIncidentStore::Open(url);
    auto d = quell::sqlite::SqliteIncidentStore::Open(url);
    auto a = quell::sqlite::SqliteIncidentStore::Open(url);
    auto r = quell::sqlite::SqliteIncidentStore::Open(url);
    if (!w || !d || !a || !r) Die("cannot open " + url);
    s.writer = std::move(*w);
    s.dispatcher = std::move(*d);
    s.ahead = std::move(*a);
    s.record = std::move(*r);
  } else if (f.backend == "postgres") {
    if (f.url.empty()) Die("--url is required for postgres");
    PgExec(f.url, "DROP SCHEMA IF EXISTS dbench_" + tag + " CASCADE; CREATE SCHEMA dbench_" + tag);
    url = f.url + (f.url.find('?') == std::string::npos ? "?" : "&") +
          "options=-csearch_path%3Ddbench_" + tag;
    auto w = quell::postgres::PgIncidentStore::Open(url);
    auto d = quell::postgres::PgIncidentStore::Open(url);
    auto a = quell::postgres::PgIncidentStore::Open(url);
    auto r = quell::postgres::PgIncidentStore::Open(url);
    if (!w || !d || !a || !r) Die("cannot connect");
    s.writer = std::move(*w);
    s.dispatcher = std::move(*d);
    s.ahead = std::move(*a);
    s.record = std::move(*r);
  } else {
    Die("--backend must be sqlite or postgres");
  }
  s.outbox = dynamic_cast<core::OutboxStore*>(s.dispatcher.get());
  s.ahead_outbox = dynamic_cast<core::OutboxStore*>(s.ahead.get());
  s.record_outbox = dynamic_cast<core::OutboxStore*>(s.record.get());
  if (s.outbox == nullptr || s.ahead_outbox == nullptr || s.record_outbox == nullptr) {
    Die("the store cannot dispatch");
  }
  return s;
}

// One open of its own incident, as a poll that opens it commits; the payload is the renderer's
// sample snapshot with the row's key.
core::OutboxRow Row(size_t i, core::WallTime now) {
  char key[64];
  std::snprintf(key, sizeof key, "tenant-1:errors:grp-%08zu", i);
  core::OutboxRow row;
  row.key = key;
  row.generation = 1;
  row.version = 1;
  row.transition = core::TransitionKind::kOpen;
  row.channel = "hook";
  row.idempotency_key = core::OutboxIdempotencyKey(row.key, 1, 1, row.channel);
  static const std::string kSample = quell::templates::SamplePayload("open");
  static const std::string kSampleKey = "checkout/TypeError: cannot read properties of undefined";
  row.payload = kSample;
  row.payload.replace(row.payload.find(kSampleKey), kSampleKey.size(), row.key);
  row.next_attempt_at = now;
  row.created_at = now;
  row.updated_at = now;
  return row;
}

quell::templates::RendererOptions RendererSettings() {
  quell::templates::RendererOptions options;
  options.view.link_base_url = "https://quell.example/incidents/";
  options.channels.emplace(
      "hook", quell::templates::ChannelTemplates{.type = "webhook", .subject = "", .body = ""});
  if (auto ok = quell::templates::CheckTemplates(options); !ok) Die(ok.error().message);
  return options;
}

quell::curl::CurlOptions CurlSettings(size_t concurrency) {
  quell::curl::CurlOptions options;
  options.max_idle_handles = 8 + concurrency;  // as cli/dispatch_wiring.cc sizes it
  return options;
}

std::unique_ptr<quell::channels::WebhookChannel> MakeChannel(const FastReceiver& receiver) {
  auto channel = quell::channels::WebhookChannel::Create({.url = receiver.Url(),
                                                          .secret = "bench-secret-0123456789",
                                                          .timeouts = {},
                                                          .group_limit = 100});
  if (!channel) Die(channel.error().message);
  return std::move(*channel);
}

// CurlMultiClient alone: `total` POSTs of bodies the dispatcher would send, in SendAll calls
// of up to 4096, at `concurrency` in flight. Requests are built before the clock starts.
double CeilingSendsPerSecond(const quell::channels::WebhookChannel& channel,
                             const core::MessageRenderer& renderer, size_t concurrency,
                             size_t total) {
  std::vector<core::HttpExchange> exchanges;
  const core::WallTime now = WallNow();
  for (size_t i = 0; i < std::min<size_t>(total, 4096); ++i) {
    core::Delivery delivery;
    delivery.row = Row(i, now);
    auto content = renderer.Decode(delivery.row);
    if (!content) Die(content.error().message);
    delivery.content = std::move(*content);
    auto message = renderer.RenderMessage("webhook", delivery.row, delivery.content, now);
    if (!message) Die(message.error().message);
    delivery.message = std::move(*message);
    auto request = channel.Encode(delivery, now);
    if (!request) Die(request.error().message);
    exchanges.push_back({std::move(*request), 0});
  }
  quell::curl::CurlMultiClient client(CurlSettings(concurrency));
  const std::vector<uint32_t> lanes = {static_cast<uint32_t>(concurrency)};
  size_t ok = 0;
  const auto started = Steady::now();
  for (size_t sent = 0; sent < total;) {
    const size_t n = std::min(exchanges.size(), total - sent);
    client.SendAll(std::span(exchanges).first(n), lanes,
                   [&](size_t /*index*/, core::Result<core::HttpResponse> r) {
                     if (r && r->status == 200) ++ok;
                   });
    sent += n;
  }
  const double elapsed = Seconds(Steady::now() - started);
  if (ok != total) Die("ceiling: " + std::to_string(ok) + " of " + std::to_string(total) + " ok");
  return static_cast<double>(total) / elapsed;
}

void Seed(core::IncidentStore& store, size_t rows, core::WallTime now) {
  constexpr size_t kPerTransaction = 10000;
  for (size_t first = 0; first < rows; first += kPerTransaction) {
    std::vector<core::OutboxRow> chunk;
    for (size_t i = first; i < std::min(rows, first + kPerTransaction); ++i) {
      chunk.push_back(Row(i, now));
    }
    auto tx = store.Begin();
    if (!tx || !(*tx)->InsertOutbox(chunk) || !(*tx)->Commit()) Die("cannot seed the outbox");
  }
}

double Ms(Steady::duration d) { return 1000.0 * Seconds(d); }

// CPU seconds this process has used, all threads (the receiver's included), user and system.
// Unlike wall time it hardly moves with the machine's load, so it compares runs on a busy
// machine: on an idle one a CPU-bound run's rate is about cores / (CPU seconds per send).
double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

int Throughput(const Flags& f) {
  Stores stores = OpenStores(f);
  Seed(*stores.writer, f.rows, WallNow());
  if (f.backend == "postgres") {
    PgExec(f.url, "ANALYZE dbench_" + f.mode + std::to_string(getpid()) + ".outbox");
  }

  FastReceiver receiver;
  Spent spent;
  quell::templates::MustacheRenderer mustache(RendererSettings());
  TimedRenderer renderer(mustache, spent);
  TimedStore store(*stores.outbox, spent);
  auto webhook = MakeChannel(receiver);
  TimedChannel channel(*webhook, spent);
  // Closed before the ceiling runs: the receiver holds a thread per open connection.
  auto http = std::make_unique<quell::curl::CurlMultiClient>(CurlSettings(f.concurrency));
  quell::system::SystemClock clock;
  quell::app::DispatcherOptions options;
  options.owner = "bench";
  options.claim_batch = f.batch;
  options.prepare_threads = static_cast<uint32_t>(f.prepare_threads);
  options.record_every = f.record_every;
  options.batches_per_round = static_cast<uint32_t>(f.batches_per_round);
  options.writers_take_turns = f.backend != "postgres";  // as quell dispatch's wiring
  // Claims ahead overlap the sends; their time is counted apart, not in the dispatcher's.
  Spent ahead_spent;
  TimedStore ahead_store(*stores.ahead_outbox, ahead_spent);
  auto dispatcher =
      std::make_unique<quell::app::Dispatcher>(store, renderer, *http, clock, options);
  TimedStore record_store(*stores.record_outbox, ahead_spent);
  if (f.claim_ahead != 0) {
    dispatcher->ClaimAheadWith(ahead_store);
    // As quell dispatch's wiring: SQLite's outcomes share the claim-ahead connection.
    if (f.backend == "postgres") dispatcher->RecordWith(record_store);
  }
  quell::app::ChannelLimits limits;
  limits.concurrency = static_cast<uint32_t>(f.concurrency);
  dispatcher->AddHttpChannel("hook", "webhook", channel, limits);

  size_t sent = 0, runs = 0;
  const double cpu_started = ProcessCpuSeconds();
  const auto started = Steady::now();
  for (;;) {
    const quell::app::DispatchReport report = dispatcher->RunOnce();
    for (const std::string& e : report.errors) Die(e);
    if (report.claimed == 0) break;
    if (report.sent != report.claimed) Die("a send failed");
    sent += report.sent;
    ++runs;
  }
  const auto elapsed = Steady::now() - started;
  const double cpu_per_send = (ProcessCpuSeconds() - cpu_started) / static_cast<double>(f.rows);
  const auto arrivals = receiver.Take();
  if (sent != f.rows || arrivals.size() != f.rows) {
    Die("sent " + std::to_string(sent) + ", received " + std::to_string(arrivals.size()) + " of " +
        std::to_string(f.rows));
  }
  const double rate = static_cast<double>(f.rows) / Seconds(elapsed);
  const Steady::duration render = spent.render;
  const Steady::duration encode = spent.encode;
  // Render and encode overlap when prepare threads > 1, so the rest is counted from the
  // dispatcher thread's serial parts alone plus their share on it.
  const auto accounted = spent.claim + spent.record + spent.thread + spent.decode +
                         (render + encode) / std::max<size_t>(f.prepare_threads, 1);
  const double total_ms = Ms(elapsed);
  const auto share = [&](Steady::duration d) { return 100.0 * Ms(d) / total_ms; };
  const auto per_row = [&](Steady::duration d) {
    return 1000.0 * Ms(d) / static_cast<double>(f.rows);
  };
  std::printf(
      "%-8s rows %zu concurrency %2zu batch %zu prepare threads %zu claim ahead %zu batches a round"
      " %zu: %6.0f sends/s (%.2f s, %zu rounds)\n"
      "         time: claim %.0f%%, render %.0f%%, encode %.0f%%, record %.0f%%, "
      "thread-id %.0f%%, decode %.0f%%, sending and the rest %.0f%%\n"
      "         per row: claim %.1f us, render %.1f us, encode %.1f us, record %.1f us"
      " (render and encode: CPU summed over the prepare threads); claim ahead %.1f us,"
      " outcome writes %.1f us (overlapping the sends)\n",
      f.backend.c_str(), f.rows, f.concurrency, f.batch, f.prepare_threads, f.claim_ahead,
      f.batches_per_round, rate, Seconds(elapsed), runs, share(spent.claim), share(render),
      share(encode), share(spent.record), share(spent.thread), share(spent.decode),
      share(elapsed - accounted), per_row(spent.claim), per_row(render), per_row(encode),
      per_row(spent.record), per_row(ahead_spent.claim), per_row(ahead_spent.record));
  dispatcher.reset();  // it may hold a batch claimed ahead, returned through its store
  http.reset();
  const double ceiling_cpu_started = ProcessCpuSeconds();
  const double ceiling = CeilingSendsPerSecond(*webhook, mustache, f.concurrency, f.ceiling_rows);
  const double ceiling_cpu_per_send =
      (ProcessCpuSeconds() - ceiling_cpu_started) / static_cast<double>(f.ceiling_rows);
  std::printf("         ceiling (CurlMultiClient alone, %zu POSTs): %6.0f sends/s; ratio %.2f\n",
              f.ceiling_rows, ceiling, rate / ceiling);
  std::printf(
      "         CPU per send (the whole process, receiver included): %.1f us, ceiling %.1f us;"
      " ratio %.2f\n",
      1e6 * cpu_per_send, 1e6 * ceiling_cpu_per_send, ceiling_cpu_per_send / cpu_per_send);
  stores.record.reset();
  stores.ahead.reset();
  stores.dispatcher.reset();
  stores.writer.reset();
  if (!stores.path.empty()) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(stores.path + suffix);
  }
  return 0;
}

int Latency(const Flags& f) {
  Stores stores = OpenStores(f);
  const size_t total = f.rate * f.seconds;
  FastReceiver receiver;
  quell::templates::MustacheRenderer renderer(RendererSettings());
  auto channel = MakeChannel(receiver);
  quell::curl::CurlMultiClient http(CurlSettings(f.concurrency));
  quell::system::SystemClock clock;
  quell::app::DispatcherOptions options;
  options.owner = "bench";
  options.batches_per_round = static_cast<uint32_t>(f.batches_per_round);
  options.writers_take_turns = f.backend != "postgres";
  auto dispatcher =
      std::make_unique<quell::app::Dispatcher>(*stores.outbox, renderer, http, clock, options);
  if (f.claim_ahead != 0) {
    dispatcher->ClaimAheadWith(*stores.ahead_outbox);
    if (f.backend == "postgres") dispatcher->RecordWith(*stores.record_outbox);
  }
  quell::app::ChannelLimits limits;
  limits.concurrency = static_cast<uint32_t>(f.concurrency);
  dispatcher->AddHttpChannel("hook", "webhook", *channel, limits);

  std::unordered_map<std::string, size_t> index_of;
  for (size_t i = 0; i < total; ++i) index_of.emplace(Row(i, {}).idempotency_key, i);
  std::vector<core::WallTime> committed(total);
  std::atomic<bool> writing{true};
  std::atomic<size_t> late_ticks{0};
  std::atomic<int64_t> writer_us{0};
  std::thread writer([&] {
    const auto start = Steady::now();
    // One transaction per `per_commit` rows, spaced so rows arrive at `rate` on average.
    const auto period = std::chrono::nanoseconds(1000000000 * f.per_commit / f.rate);
    for (size_t first = 0; first < total; first += f.per_commit) {
      const auto due = start + period * static_cast<int64_t>(first / f.per_commit);
      if (Steady::now() > due + std::chrono::milliseconds(10)) late_ticks.fetch_add(1);
      std::this_thread::sleep_until(due);
      const size_t end = std::min(total, first + f.per_commit);
      std::vector<core::OutboxRow> rows;
      for (size_t i = first; i < end; ++i) rows.push_back(Row(i, WallNow()));
      auto tx = stores.writer->Begin();
      if (!tx || !(*tx)->InsertOutbox(rows) || !(*tx)->Commit()) Die("writer: cannot commit");
      const core::WallTime at = WallNow();
      for (size_t i = first; i < end; ++i) committed[i] = at;
    }
    writer_us.store(
        std::chrono::duration_cast<std::chrono::microseconds>(Steady::now() - start).count());
    writing.store(false);
  });

  const auto idle = std::chrono::milliseconds(f.idle_ms);
  size_t claims = 0;
  // Generous: a writer that cannot keep the rate takes longer than --seconds.
  const auto deadline = Steady::now() + std::chrono::seconds(4 * f.seconds + 30);
  while (writing.load() || receiver.Count() < total) {
    if (Steady::now() > deadline) Die("not everything was delivered in time");
    const quell::app::DispatchReport report = dispatcher->RunOnce();
    for (const std::string& e : report.errors) Die(e);
    if (report.claimed > 0) ++claims;
    const core::WallTime now = clock.Now();
    if (report.next_due && *report.next_due <= now) continue;
    core::Duration wait = idle;
    if (report.next_due && *report.next_due - now < wait) wait = *report.next_due - now;
    clock.SleepFor(wait);
  }
  writer.join();

  std::vector<double> latency_ms;
  for (const auto& [key, at] : receiver.Take()) {
    const auto it = index_of.find(key);
    if (it == index_of.end()) Die("an unknown key arrived");
    latency_ms.push_back(
        std::chrono::duration<double, std::milli>(at - committed[it->second]).count());
  }
  if (latency_ms.size() != total) Die("duplicates arrived");
  std::sort(latency_ms.begin(), latency_ms.end());
  const auto pct = [&](double p) {
    return latency_ms[std::min(latency_ms.size() - 1,
                               static_cast<size_t>(p * static_cast<double>(latency_ms.size())))];
  };
  std::printf(
      "%-8s latency at %zu transitions/s (%zu per commit) for %zu s, concurrency %zu, "
      "idle %zu ms: p50 %.0f ms, p99 %.0f ms, max %.0f ms\n"
      "         (%zu claims; the writer committed %.0f/s and was over 10 ms late %zu times)\n",
      f.backend.c_str(), f.rate, f.per_commit, f.seconds, f.concurrency, f.idle_ms, pct(0.50),
      pct(0.99), latency_ms.back(), claims,
      static_cast<double>(total) * 1e6 / static_cast<double>(writer_us.load()), late_ticks.load());
  dispatcher.reset();  // it may hold a batch claimed ahead, returned through its store
  stores.record.reset();
  stores.ahead.reset();
  stores.dispatcher.reset();
  stores.writer.reset();
  if (!stores.path.empty()) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(stores.path + suffix);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  if (flags.concurrency == 0 || flags.rate == 0) Die("--concurrency and --rate must be > 0");
  if (flags.mode == "throughput") return Throughput(flags);
  if (flags.mode == "latency") return Latency(flags);
  Die("--mode must be throughput or latency");
}
