// Several quell instances against one PostgreSQL, in one run: 1, 2 and 4 instances share one
// condition of N keys split into --shards shards (app::ShardOf), shard s polled by instance
// s % instances under its own lease (app::ShardLeaseName). Each instance has the connections
// `quell run` has: a poll connection (the real app::PollApplier, fenced by its shard's lease),
// a dispatch connection (ClaimDue + RecordOutcomes, the dispatcher's store calls, no channel)
// and a lease connection (its keeper renewing every lease/3 while it polls).
//
//   instances_bench --url URL [--keys 100000] [--instances 1,2,4] [--shards 16] [--updates 4]
//                   [--lease-s 15] [--renew-seconds 3] [--batch 256]
//
// For each instance count, on a fresh schema: the insert ceiling (plain multi-row INSERTs of the
// rows an opening poll writes, same transactions, same connections), then the polls (open: every
// key new and unhealthy; update xU: unhealthy again a minute later; unchanged: the last update
// again), the lease renewals flat out, the dispatch of every outbox row with all instances
// claiming, and the claim ceiling (plain SKIP LOCKED claim and record). Prints one line each.
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "latency.h"
#include "pg_ceiling.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/app/poll_applier.h"
#include "quell/app/poll_leases.h"
#include "quell/app/vector_observation_stream.h"
#include "timed_store.h"

namespace {

namespace core = quell::core;
namespace app = quell::app;
using quell::bench::Percentile;
using Steady = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "instances_bench: %s\n", message.c_str());
  std::exit(1);  // NOLINT(concurrency-mt-unsafe): a bench stops at its first failure
}

struct Flags {
  std::string url;
  size_t keys = 100000;
  std::vector<size_t> instances = {1, 2, 4};
  uint32_t shards = 16;
  int updates = 4;
  int lease_s = 15;
  double renew_seconds = 3;
  size_t batch = 256;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i];
    const std::string value = argv[i + 1];
    if (name == "--url") {
      f.url = value;
    } else if (name == "--keys") {
      f.keys = std::stoul(value);
    } else if (name == "--instances") {
      f.instances.clear();
      for (size_t at = 0; at < value.size();) {
        const size_t comma = value.find(',', at);
        f.instances.push_back(std::stoul(value.substr(at, comma - at)));
        at = comma == std::string::npos ? value.size() : comma + 1;
      }
    } else if (name == "--shards") {
      f.shards = static_cast<uint32_t>(std::stoul(value));
    } else if (name == "--updates") {
      f.updates = std::stoi(value);
    } else if (name == "--lease-s") {
      f.lease_s = std::stoi(value);
    } else if (name == "--renew-seconds") {
      f.renew_seconds = std::stod(value);
    } else if (name == "--batch") {
      f.batch = std::stoul(value);
    } else {
      Die("unknown flag " + name);
    }
  }
  if (f.url.empty()) Die("--url is required");
  if (f.shards < 1 || f.shards > 64) Die("--shards 1..64");
  return f;
}

double Since(Steady::time_point start) {
  return std::chrono::duration<double>(Steady::now() - start).count();
}

core::WallTime WallNow() {
  return std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now());
}

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

std::string ServerVersion(const std::string& url) {
  PGconn* conn = PQconnectdb(url.c_str());
  PGresult* r = PQexec(conn, "SHOW server_version");
  std::string version = PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0) : "?";
  PQclear(r);
  PQfinish(conn);
  return version;
}

const core::Duration kInterval = std::chrono::minutes(1);
constexpr const char* kSource = "bench source";
constexpr const char* kCondition = "checkout";

std::string Key(size_t i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "tenant-%02zu:checkout:grp-%08zu", i % 50, i);
  return buf;
}

// Sets the poll's fence: the applier checks the shard lease's token in the poll's transaction.
bool SetFence(app::ApplyOptions& options, const std::string& lease, uint64_t token) {
  options.fence = app::Fence{.lease = lease, .token = token};
  return true;
}

// One instance: its three connections, its shards and what it measured.
struct Instance {
  std::string holder;
  std::unique_ptr<quell::postgres::PgIncidentStore> poll, dispatch, lease;
  std::unique_ptr<quell::bench::TimedIncidentStore> timed;
  std::vector<uint32_t> shards;
  std::map<uint32_t, uint64_t> tokens;  // shard -> fencing token (leases held)
  std::vector<double> apply_s;          // each poll transaction, Apply to Apply's return
};

std::unique_ptr<quell::postgres::PgIncidentStore> Connect(const std::string& url) {
  auto opened = quell::postgres::PgIncidentStore::Open(url);
  if (!opened) Die(opened.error().message);
  return std::move(*opened);
}

std::string LeaseOf(const Flags& f, uint32_t shard) {
  return app::ShardLeaseName(kSource, kInterval, kCondition, shard, f.shards);
}

// Takes every shard lease of every instance; false (with the store's reason printed once)
// when the store keeps no leases, and the run goes on unfenced.
bool TakeLeases(const Flags& f, std::vector<Instance>& instances) {
  for (Instance& in : instances) {
    for (uint32_t s : in.shards) {
      auto claim =
          in.lease->Acquire(LeaseOf(f, s), in.holder, WallNow(), std::chrono::seconds(f.lease_s));
      if (!claim) {
        std::printf("leases: not measured (%s)\n", claim.error().message.c_str());
        return false;
      }
      if (!claim->held) Die("lease " + LeaseOf(f, s) + " is held by " + claim->lease.holder);
      in.tokens[s] = claim->lease.token;
    }
  }
  return true;
}

// Each instance's lease keeper while it polls: renews its leases every lease/3 and marks the
// instance seen, as `quell run`'s keeper does, on the lease connection.
class Keepers {
 public:
  Keepers(const Flags& f, std::vector<Instance>& instances) {
    for (Instance& in : instances) {
      threads_.emplace_back([this, &f, &in] {
        const auto every = std::chrono::milliseconds(f.lease_s * 1000 / 3);
        const core::WallTime started = WallNow();
        for (auto next = Steady::now(); !stop_;) {
          if (Steady::now() >= next) {
            for (uint32_t s : in.shards) {
              auto claim = in.lease->Acquire(LeaseOf(f, s), in.holder, WallNow(),
                                             std::chrono::seconds(f.lease_s));
              if (!claim || !claim->held) Die("a lease renewal failed");
            }
            const core::InstanceSeen seen{.id = in.holder,
                                          .host = "bench",
                                          .pid = static_cast<uint64_t>(getpid()),
                                          .version = "bench",
                                          .started_at = started,
                                          .last_seen_at = WallNow()};
            if (!in.lease->SeeInstance(seen, WallNow() - std::chrono::hours(24))) {
              Die("SeeInstance failed");
            }
            next += every;
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      });
    }
  }
  ~Keepers() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }
  Keepers(const Keepers&) = delete;
  Keepers& operator=(const Keepers&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

class NoSink : public app::DecisionSink {
 public:
  void OnDecision(const core::Observation&, const core::Decision&) override {}
  void Reset() override {}
};

// Runs fn(instance) on one thread per instance; returns the wall time until the last finished.
template <typename Fn>
double OnEveryInstance(std::vector<Instance>& instances, Fn fn) {
  const auto start = Steady::now();
  std::vector<std::thread> threads;
  for (Instance& in : instances) threads.emplace_back([&fn, &in] { fn(in); });
  for (std::thread& t : threads) t.join();
  return Since(start);
}

struct Phase {
  std::string name;
  int minute;  // observations at start + minute
};

struct PhaseResult {
  double seconds = 0;
  uint64_t changed = 0;
  uint64_t outbox = 0;
  std::vector<double> apply_s, commit_s, fence_s;
};

PhaseResult RunPhase(const Flags& f, std::vector<Instance>& instances,
                     const std::vector<std::vector<std::string>>& shard_keys, const Phase& phase,
                     core::WallTime start, bool fenced) {
  const core::WallTime at = start + std::chrono::minutes(phase.minute);
  std::vector<std::vector<core::Observation>> polls(f.shards);
  for (uint32_t s = 0; s < f.shards; ++s) {
    for (const std::string& key : shard_keys[s]) {
      core::Observation o;
      o.key = key;
      o.at = at;
      o.health = core::Health::kUnhealthy;
      o.condition = kCondition;
      o.evidence = R"({"title":"Checkout returned 502","level":"error","count":12})";
      polls[s].push_back(std::move(o));
    }
  }
  for (Instance& in : instances) in.timed->times = {};
  quell::jsonl::JsonPayloadEncoder encoder;
  std::atomic<uint64_t> changed{0}, outbox{0};
  PhaseResult r;
  r.seconds = OnEveryInstance(instances, [&](Instance& in) {
    in.apply_s.clear();
    for (uint32_t s : in.shards) {
      app::ApplyOptions options;
      if (fenced && !SetFence(options, LeaseOf(f, s), in.tokens.at(s))) Die("cannot fence");
      app::PollApplier applier(*in.timed, encoder, options);
      app::VectorObservationStream stream(polls[s]);
      NoSink sink;
      const auto t0 = Steady::now();
      auto summary = applier.Apply(stream, phase.name + "-" + std::to_string(s), at, sink);
      in.apply_s.push_back(Since(t0));
      if (!summary) Die(phase.name + ": " + summary.error().message);
      changed += summary->poll.changed;
      outbox += summary->poll.outbox_rows;
    }
  });
  r.changed = changed;
  r.outbox = outbox;
  for (Instance& in : instances) {
    r.apply_s.insert(r.apply_s.end(), in.apply_s.begin(), in.apply_s.end());
    r.commit_s.insert(r.commit_s.end(), in.timed->times.commit_s.begin(),
                      in.timed->times.commit_s.end());
    r.fence_s.insert(r.fence_s.end(), in.timed->times.fence_s.begin(),
                     in.timed->times.fence_s.end());
  }
  return r;
}

double Sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

void PrintPolls(const Flags& f, size_t n, const std::vector<Phase>& phases,
                const std::vector<PhaseResult>& results, const quell::bench::CeilingResult& ceiling,
                bool fenced) {
  const double ceiling_rate = static_cast<double>(ceiling.rows) / ceiling.seconds;
  std::printf(
      "instances=%zu insert ceiling: %zu rows in %.3f s = %.0f rows/s; transaction p50 %.1f ms "
      "p99 %.1f ms\n",
      n, ceiling.rows, ceiling.seconds, ceiling_rate, 1e3 * Percentile(ceiling.transaction_s, 0.5),
      1e3 * Percentile(ceiling.transaction_s, 0.99));
  for (size_t p = 0; p < phases.size(); ++p) {
    const PhaseResult& r = results[p];
    // Rows written: an incident and a decision per changed key, and the outbox rows.
    const auto rows = static_cast<double>(2 * r.changed + r.outbox);
    std::printf(
        "instances=%zu %-9s %8.0f obs/s (%.3f s)  changed %6llu  outbox %6llu  %8.0f rows/s = "
        "%.2f of ceiling  txn p50 %7.1f p99 %7.1f ms  commit p50 %5.1f p99 %5.1f ms  fence ",
        n, phases[p].name.c_str(), static_cast<double>(f.keys) / r.seconds, r.seconds,
        static_cast<unsigned long long>(r.changed), static_cast<unsigned long long>(r.outbox),
        rows / r.seconds, rows / r.seconds / ceiling_rate, 1e3 * Percentile(r.apply_s, 0.5),
        1e3 * Percentile(r.apply_s, 0.99), 1e3 * Percentile(r.commit_s, 0.5),
        1e3 * Percentile(r.commit_s, 0.99));
    if (fenced && !r.fence_s.empty()) {
      std::printf("p50 %.2f ms, %.2f%% of poll time\n", 1e3 * Percentile(r.fence_s, 0.5),
                  100.0 * Sum(r.fence_s) / Sum(r.apply_s));
    } else {
      std::printf("not measured (unfenced)\n");
    }
  }
}

// Every instance renews its leases flat out on its lease connection for --renew-seconds.
void RenewFlatOut(const Flags& f, size_t n, std::vector<Instance>& instances) {
  std::mutex mu;
  std::vector<double> latencies;
  const double seconds = OnEveryInstance(instances, [&](Instance& in) {
    std::vector<double> mine;
    const auto start = Steady::now();
    for (size_t i = 0; Since(start) < f.renew_seconds; ++i) {
      const uint32_t s = in.shards[i % in.shards.size()];
      const auto t0 = Steady::now();
      auto claim =
          in.lease->Acquire(LeaseOf(f, s), in.holder, WallNow(), std::chrono::seconds(f.lease_s));
      mine.push_back(Since(t0));
      if (!claim || !claim->held || claim->lease.token != in.tokens.at(s)) Die("renewal failed");
    }
    const std::lock_guard lock(mu);
    latencies.insert(latencies.end(), mine.begin(), mine.end());
  });
  // What `quell run` needs: every lease renewed once per lease/3.
  const double needed = 3.0 * f.shards / f.lease_s;
  std::printf(
      "instances=%zu lease renewals: %.0f/s (all instances together), p50 %.2f ms p99 %.2f ms; "
      "%u leases at lease %d s need %.1f/s\n",
      n, static_cast<double>(latencies.size()) / seconds, 1e3 * Percentile(latencies, 0.5),
      1e3 * Percentile(latencies, 0.99), f.shards, f.lease_s, needed);
}

// The fence alone: every instance runs FencePoll in a transaction of its own on its poll
// connection, flat out for --renew-seconds: the statement's cost without a poll around it, so
// its share of a poll can be estimated even where the applier does not fence.
void FenceFlatOut(const Flags& f, size_t n, std::vector<Instance>& instances) {
  std::mutex mu;
  std::vector<double> fence_s, txn_s;
  const double seconds = OnEveryInstance(instances, [&](Instance& in) {
    std::vector<double> fences, txns;
    const auto start = Steady::now();
    for (size_t i = 0; Since(start) < f.renew_seconds; ++i) {
      const uint32_t s = in.shards[i % in.shards.size()];
      const auto t0 = Steady::now();
      auto tx = in.poll->Begin();
      if (!tx) Die(tx.error().message);
      const auto t1 = Steady::now();
      if (auto ok = (*tx)->FencePoll(LeaseOf(f, s), in.tokens.at(s), WallNow()); !ok) {
        Die(ok.error().message);
      }
      fences.push_back(Since(t1));
      if (auto ok = (*tx)->Commit(); !ok) Die(ok.error().message);
      txns.push_back(Since(t0));
    }
    const std::lock_guard lock(mu);
    fence_s.insert(fence_s.end(), fences.begin(), fences.end());
    txn_s.insert(txn_s.end(), txns.begin(), txns.end());
  });
  std::printf(
      "instances=%zu fence alone: %.0f fenced commits/s, FencePoll p50 %.2f ms p99 %.2f ms, "
      "its transaction p50 %.2f ms p99 %.2f ms\n",
      n, static_cast<double>(txn_s.size()) / seconds, 1e3 * Percentile(fence_s, 0.5),
      1e3 * Percentile(fence_s, 0.99), 1e3 * Percentile(txn_s, 0.5), 1e3 * Percentile(txn_s, 0.99));
}

// Every instance claims and records (all sent, one outcome transaction per claim) until the
// outbox is empty, as dispatchers on every instance do.
void Dispatch(const Flags& f, size_t n, std::vector<Instance>& instances, const std::string& url,
              const quell::bench::Workload& work) {
  std::mutex mu;
  std::vector<double> latencies;
  std::atomic<size_t> rows{0};
  const double seconds = OnEveryInstance(instances, [&](Instance& in) {
    std::vector<double> mine;
    for (;;) {
      const auto t0 = Steady::now();
      auto claimed = in.dispatch->ClaimDue(in.holder, WallNow(), std::chrono::seconds(60), f.batch);
      if (!claimed) Die(claimed.error().message);
      if (claimed->empty()) break;
      std::vector<core::OutboxOutcome> outcomes(claimed->size());
      for (size_t i = 0; i < claimed->size(); ++i) {
        outcomes[i].idempotency_key = (*claimed)[i].idempotency_key;
        outcomes[i].remote_message_id = "m";
      }
      auto recorded = in.dispatch->RecordOutcomes(in.holder, outcomes, WallNow());
      if (!recorded) Die(recorded.error().message);
      for (const core::Status& s : *recorded) {
        if (!s) Die(s.error().message);
      }
      mine.push_back(Since(t0));
      rows += claimed->size();
    }
    const std::lock_guard lock(mu);
    latencies.insert(latencies.end(), mine.begin(), mine.end());
  });
  const auto ceiling = quell::bench::ClaimCeiling(url, work, f.batch);
  const double rate = static_cast<double>(rows) / seconds;
  const double ceiling_rate = static_cast<double>(ceiling.rows) / ceiling.seconds;
  std::printf(
      "instances=%zu dispatch: %zu rows in %.3f s = %.0f rows/s, batch p50 %.1f p99 %.1f ms; "
      "claim ceiling %.0f rows/s (batch p50 %.1f p99 %.1f ms) = %.2f of ceiling\n",
      n, rows.load(), seconds, rate, 1e3 * Percentile(latencies, 0.5),
      1e3 * Percentile(latencies, 0.99), ceiling_rate, 1e3 * Percentile(ceiling.transaction_s, 0.5),
      1e3 * Percentile(ceiling.transaction_s, 0.99), rate / ceiling_rate);
  if (rows != f.keys) Die("dispatched " + std::to_string(rows) + " of " + std::to_string(f.keys));
}

void RunInstances(const Flags& f, size_t n,
                  const std::vector<std::vector<std::string>>& shard_keys) {
  const std::string schema =
      "instances_bench_" + std::to_string(getpid()) + "_" + std::to_string(n);
  PgExec(f.url, "DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema);
  const std::string url = f.url + (f.url.find('?') == std::string::npos ? "?" : "&") +
                          "options=-csearch_path%3D" + schema;
  std::vector<Instance> instances(n);
  quell::bench::Workload work;
  work.keys_of.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Instance& in = instances[i];
    in.holder = "bench:" + std::to_string(getpid()) + ":" + std::to_string(i);
    in.poll = Connect(url);
    in.dispatch = Connect(url);
    in.lease = Connect(url);
    in.timed = std::make_unique<quell::bench::TimedIncidentStore>(*in.poll);
    for (uint32_t s = static_cast<uint32_t>(i); s < f.shards; s += static_cast<uint32_t>(n)) {
      in.shards.push_back(s);
      work.keys_of[i].push_back(shard_keys[s]);
    }
    if (in.shards.empty()) Die("more instances than shards");
  }
  const auto ceiling = quell::bench::InsertCeiling(url, work);
  const bool leases = TakeLeases(f, instances);
  app::ApplyOptions probe;
  const bool fenced = leases && SetFence(probe, "probe", 1);

  std::vector<Phase> phases = {{"open", 0}};
  for (int u = 1; u <= f.updates; ++u) phases.push_back({"update-" + std::to_string(u), u});
  phases.push_back({"unchanged", f.updates});
  std::vector<PhaseResult> results;
  const core::WallTime start = WallNow();
  {
    std::unique_ptr<Keepers> keepers;
    if (leases) keepers = std::make_unique<Keepers>(f, instances);
    for (const Phase& phase : phases) {
      results.push_back(RunPhase(f, instances, shard_keys, phase, start, fenced));
    }
  }
  PrintPolls(f, n, phases, results, ceiling, fenced);
  if (leases) {
    RenewFlatOut(f, n, instances);
    FenceFlatOut(f, n, instances);
  }

  PgExec(url, "ANALYZE outbox");  // as autovacuum would have by now in a running deployment
  Dispatch(f, n, instances, url, work);

  auto incidents = instances[0].poll->CountOpenIncidents();
  if (!incidents || *incidents != f.keys) Die("open incidents differ from the keys");
  instances.clear();
  PgExec(f.url, "DROP SCHEMA " + schema + " CASCADE");
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = ParseFlags(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it is measured, also into a file
  std::vector<std::vector<std::string>> shard_keys(f.shards);
  for (size_t i = 0; i < f.keys; ++i) {
    std::string key = Key(i);
    shard_keys[app::ShardOf(key, f.shards)].push_back(std::move(key));
  }
  std::printf("PostgreSQL %s; %zu keys in %u shards; lease %d s; %d update polls\n",
              ServerVersion(f.url).c_str(), f.keys, f.shards, f.lease_s, f.updates);
  for (size_t n : f.instances) RunInstances(f, n, shard_keys);
  return 0;
}
