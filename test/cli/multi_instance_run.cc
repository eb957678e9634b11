#include "multi_instance_run.h"

#include <algorithm>
#include <csignal>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "child_process.h"
#include "multi_instance_harness.h"
#include "quell/sim/scenario.h"
#include "quell/sim/server.h"
#include "run_process.h"

namespace quell::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr const char* kHookSecret = "whsec-multi-instance-chaos-4be1";
constexpr int kCyclePolls = 18;  // committed polls per repetition of the outage script

json Group(const std::string& id, const std::string& stage) {
  return {{"id", id},
          {"title", "Agent step failed: " + id},
          {"tags", {{"tenant", "acme"}, {"agent_stage", stage}}}};
}
json Open(const std::string& id, const std::string& stage) {
  return {{"op", "open"}, {"group", Group(id, stage)}, {"event", true}, {"count", 1}};
}
json Resolve(const std::string& id) { return {{"op", "resolve"}, {"group", id}}; }

// A change upstream, made when the store holds `at` committed polls: the script advances by
// polls that took effect, so a failover gap or a poll lost to a kill shifts it in time only.
struct Step {
  long long at = 0;
  json actions;
  bool done = false;
};

// Per cycle c (offset 18c): groups a and b fail from the start (opens, a renotify after the
// cooldown), recover at 5 (resolves after three healthy polls) while c starts failing; a fails
// again at 9 (its second generation) and recovers with c at 14. A canary group fails
// throughout, so every poll changes something and is recorded in `polls`.
std::vector<Step> Script(int cycles) {
  std::vector<Step> steps;
  for (int c = 0; c < cycles; ++c) {
    const long long base = static_cast<long long>(c) * kCyclePolls;
    const std::string n = std::to_string(c);
    const std::string a = "grp_a" + n, b = "grp_b" + n, cc = "grp_c" + n;
    if (c > 0) steps.push_back({base, json::array({Open(a, "checkout"), Open(b, "refund")})});
    steps.push_back({base + 5, json::array({Resolve(a), Resolve(b), Open(cc, "search")})});
    steps.push_back({base + 9, json::array({Open(a, "checkout")})});
    steps.push_back({base + 14, json::array({Resolve(a), Resolve(cc)})});
  }
  return steps;
}

void WriteConfig(const std::string& path, const std::string& store, int sim_port,
                 const std::string& hook, bool leases) {
  std::ofstream(path) << "store: \"" << store << "\"\n"
                      << "infrai:\n  base_url: http://127.0.0.1:" << sim_port << "\n"
                      << "  retry: {max_attempts: 1}\n"
                      << "defaults: {cooldown: 2s, renotify_limit: 1, healthy_polls_to_close: "
                      << kHealthyPollsToClose << ", channels: [hook]}\n"
                      << "conditions:\n"
                      << "  - {name: agent-errors, type: error_groups, interval: "
                      << kInterval.count() << "s}\n"
                      << (leases ? "polling: {lease: " + std::to_string(kLease.count()) + "s}\n"
                                 : "")
                      << "channels:\n"
                      << "  - {name: hook, type: webhook, url: \"" << hook << "\","
                      << " secret_env: QUELL_CHAOS_HOOK_SECRET, timeout: 1s,"
                      << " initial_backoff: 100ms, max_backoff: 300ms}\n"
                      << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
                      << "log: {format: json, level: info}\n"
                      << "http: {listen: \"127.0.0.1:0\"}\n";
}

// The pid in the holder id (host:pid:random) of the poll lease that is held; -1 when none is.
pid_t HolderPid(const PgSchema& db) {
  try {
    const Rows rows = db.Query(
        "SELECT holder FROM poll_leases WHERE holder <> '' AND expires_at > "
        "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint ORDER BY renewed_at DESC "
        "LIMIT 1");
    if (rows.empty()) return -1;
    const std::string& holder = rows[0][0];
    const size_t last = holder.rfind(':');
    const size_t before = holder.rfind(':', last - 1);
    if (last == std::string::npos || before == std::string::npos) return -1;
    return static_cast<pid_t>(std::stol(holder.substr(before + 1, last - before - 1)));
  } catch (const std::exception&) {
    return -1;
  }
}

int64_t SimPolls(sim::SimServer& sim) {
  const std::lock_guard<std::mutex> lock(sim.state().mu);
  return sim.state().polls;
}

// The chaos loop's state: one disturbance at a time, each at a committed-poll mark.
class Chaos {
 public:
  Chaos(std::vector<std::unique_ptr<Instance>>& fleet, sim::SimServer& sim, const PgSchema& db,
        uint64_t seed, Outcome& out)
      : fleet_(fleet), sim_(sim), db_(db), rng_(seed), out_(out) {}

  bool busy() const { return paused_ != nullptr; }

  // Every fourth committed poll from the third on: every fourth disturbance, the first
  // included, kills the polling instance (the failover the test bounds); the others kill -9
  // or pause a random one.
  void Tick(long long committed, long long end) {
    if (paused_ != nullptr && steady_clock::now() >= resume_at_) {
      paused_->Resume();
      out_.chaos.push_back("SIGCONT " + paused_->name());
      paused_ = nullptr;
    }
    if (busy() || committed < next_ || committed >= end - 2) return;
    const bool kill_holder = events_++ % 4 == 0;
    next_ += 4;
    Instance* target = nullptr;
    const pid_t holder = HolderPid(db_);
    if (kill_holder && holder > 0) {
      for (auto& i : fleet_) target = i->pid() == holder ? i.get() : target;
    }
    if (target == nullptr) target = fleet_[rng_() % fleet_.size()].get();
    // Without a lease (a build that polls on every instance) each instance is a polling one.
    const bool is_holder = holder > 0 ? target->pid() == holder : kill_holder;
    if (kill_holder || rng_() % 2 == 0) {
      const auto at = steady_clock::now();
      target->Kill9();
      const int64_t polls = SimPolls(sim_);  // every poll the dead one made is counted
      if (is_holder) pending_failovers_.push_back({at, polls});
      out_.chaos.push_back("kill -9 " + target->name() + (is_holder ? " (polling)" : "") +
                           " at poll " + std::to_string(committed) + ", restarted");
      target->Start();
      return;
    }
    target->Pause();
    paused_ = target;
    resume_at_ = steady_clock::now() + kLease + std::chrono::seconds(1);
    out_.chaos.push_back("SIGSTOP " + target->name() + (is_holder ? " (polling)" : "") +
                         " at poll " + std::to_string(committed) + " for lease + 1s");
  }

  // Each kill of the polling instance: seconds until the source's next listing.
  void Failovers(const std::vector<steady_clock::time_point>& polls) const {
    for (const auto& [at, before] : pending_failovers_) {
      if (static_cast<size_t>(before) < polls.size()) {
        out_.failovers.push_back(
            std::chrono::duration<double>(polls[static_cast<size_t>(before)] - at).count());
      } else {
        out_.failovers.push_back(-1);  // no poll after it at all
      }
    }
  }

 private:
  std::vector<std::unique_ptr<Instance>>& fleet_;
  sim::SimServer& sim_;
  const PgSchema& db_;
  std::mt19937_64 rng_;
  Outcome& out_;
  long long next_ = 3;
  int events_ = 0;
  Instance* paused_ = nullptr;
  steady_clock::time_point resume_at_;
  std::vector<std::pair<steady_clock::time_point, int64_t>> pending_failovers_;
};

void Snapshot(const PgSchema& db, Outcome& out) {
  std::map<std::string, std::pair<long long, std::string>> current;  // key -> (generation, status)
  for (const auto& r : db.Query("SELECT key, generation, status, event_count, renotify_count "
                                "FROM incidents ORDER BY key")) {
    current[r[0]] = {std::stoll(r[1]), r[2]};
    std::string text = "generation=" + r[1] + " status=" + r[2] + " renotifies=" + r[4];
    if (r[2] == "resolved") text += " events=" + r[3];
    out.incidents[r[0]] = text;
  }
  std::map<std::string, std::map<std::string, long long>> kinds;
  std::map<std::string, std::pair<long long, long long>> span;  // last failing at, resolve at
  for (const auto& r : db.Query("SELECT key, generation, decision, reason, count(*), max(at) "
                                "FROM decisions GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4")) {
    const std::string id = r[0] + "#" + r[1];
    const bool open_now = current[r[0]].first == std::stoll(r[1]) && current[r[0]].second == "open";
    std::string kind = r[2];
    if (r[2] == "notify" || r[2] == "resolve") kind += "/" + r[3];
    if (r[2] == "ignore") continue;  // healthy sightings after a resolve: as many as polls ran
    kinds[id][kind] += open_now ? 0 : std::stoll(r[4]);
    if (r[2] == "notify" || r[2] == "update_only") {
      span[id].first = std::max(span[id].first, std::stoll(r[5]));
    }
    if (r[2] == "resolve") span[id].second = std::stoll(r[5]);
  }
  for (const auto& [id, counts] : kinds) {
    std::string text;
    for (const auto& [kind, n] : counts)
      text += kind + (n > 0 ? "=" + std::to_string(n) : "") + " ";
    out.decisions[id] = text;
  }
  for (const auto& [id, s] : span) {
    if (s.second > 0) out.healthy_runs[id] = static_cast<double>(s.second - s.first) / 1e6;
  }
  for (const auto& r : db.Query("SELECT key, generation, transition, status, idempotency_key "
                                "FROM outbox ORDER BY key, generation, version")) {
    out.transitions[r[0] + "#" + r[1] + "#" + r[2]] += 1;
    if (r[3] != "sent") out.unsent.push_back(r[4] + " " + r[0] + " " + r[2] + " " + r[3]);
  }
  out.lost_polls =
      static_cast<int>(out.polls.size()) - static_cast<int>(db.Count("SELECT count(*) FROM polls"));
}

}  // namespace

Outcome RunScenario(const RunSpec& spec) {
  Outcome out;
  const auto started = steady_clock::now();
  std::filesystem::create_directories(spec.dir);
  setenv("QUELL_CHAOS_HOOK_SECRET", kHookSecret, 1);  // NOLINT(concurrency-mt-unsafe)
  setenv("INFRAI_API_KEY", "ifr_pk_proj_chaos_0123456789abcdef", 1);  // NOLINT
  sim::SimOptions options;
  options.scenario =
      json{{"groups", json::array({Group("grp_canary", "canary"), Group("grp_a0", "checkout"),
                                   Group("grp_b0", "refund")})}};
  sim::SimServer sim(std::move(options));
  auto sim_port = sim.Start();
  if (!sim_port.ok()) return out.error = sim_port.error().message, out;
  ChaosWebhookReceiver hook(kHookSecret, milliseconds(1500), 3);
  PgSchema db(spec.base_url, spec.label);
  const std::string config = (spec.dir / (spec.label + ".yaml")).string();
  WriteConfig(config, db.url(), *sim_port, hook.Url(), true);
  // A build without poll leases refuses `polling:`; it runs without, so the comparison shows
  // what several unleased instances do.
  const ProcessResult check = RunProcess({QUELL_BINARY, "config", "check", "-c", config});
  if (check.exit_code != 0 &&
      (check.err + check.out).find("polling: unknown setting") != std::string::npos) {
    out.chaos.push_back("this build has no polling.lease: every instance polls");
    WriteConfig(config, db.url(), *sim_port, hook.Url(), false);
  }

  PollClock clock(sim);
  std::vector<std::unique_ptr<Instance>> fleet;
  for (int i = 0; i < spec.instances; ++i) {
    fleet.push_back(std::make_unique<Instance>(spec.label + "-" + std::to_string(i + 1),
                                               QUELL_BINARY, config, spec.dir));
    fleet.back()->Start();
  }
  Chaos chaos(fleet, sim, db, spec.seed, out);
  std::vector<Step> script = Script(spec.cycles);
  const long long end = static_cast<long long>(spec.cycles) * kCyclePolls;
  // Generous: the script's polls, a failover per disturbance, and a loaded machine.
  const auto deadline = started + std::chrono::seconds(60 + 40 * spec.cycles);
  for (;;) {
    const long long committed = db.Count("SELECT count(*) FROM polls");
    for (Step& step : script) {
      if (step.done || committed < step.at) continue;
      const std::lock_guard<std::mutex> lock(sim.state().mu);  // no listing sees half of it
      for (const json& action : step.actions) {
        if (auto st = sim::ApplyAction(sim.state(), action); !st.ok()) {
          return out.error = st.error().message, out;
        }
      }
      step.done = true;
    }
    if (spec.chaos) chaos.Tick(committed, end);
    for (auto& instance : fleet) {
      if (instance->Exited()) {
        out.error = instance->name() + " exited: " + ReadFile(instance->log());
        return out;
      }
    }
    if (committed >= end && !chaos.busy()) break;
    if (steady_clock::now() > deadline) {
      out.error = "the script stalled at " + std::to_string(committed) + " committed polls of " +
                  std::to_string(end) + "; see " + fleet[0]->log().string();
      return out;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  // Every transition written is delivered before the instances stop.
  const auto drain = steady_clock::now() + std::chrono::seconds(30);
  while (db.Count("SELECT count(*) FROM outbox WHERE status <> 'sent'") != 0 &&
         steady_clock::now() < drain) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  for (auto& instance : fleet) instance->Stop();
  out.polls = clock.Polls();
  chaos.Failovers(out.polls);
  out.received = hook.Entries();
  out.hung = hook.hung();
  out.refused = hook.refused();
  try {
    Snapshot(db, out);
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  sim.Stop();
  out.seconds = std::chrono::duration<double>(steady_clock::now() - started).count();
  return out;
}

}  // namespace quell::testing
