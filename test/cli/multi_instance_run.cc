#include "multi_instance_run.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "multi_instance_chaos_loop.h"
#include "multi_instance_harness.h"
#include "multi_instance_snapshot.h"
#include "quell/sim/scenario.h"
#include "quell/sim/server.h"
#include "test_paths.h"

namespace quell::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr const char* kHookSecret = "whsec-multi-instance-chaos-4be1";

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
                 const std::string& hook) {
  std::ofstream(path) << "store: \"" << store << "\"\n"
                      << "infrai:\n  base_url: http://127.0.0.1:" << sim_port << "\n"
                      << "  retry: {max_attempts: 1}\n"
                      << "defaults: {cooldown: 2s, renotify_limit: 1, healthy_polls_to_close: "
                      << kHealthyPollsToClose << ", channels: [hook]}\n"
                      << "conditions:\n"
                      << "  - {name: agent-errors, type: error_groups, interval: "
                      << kInterval.count() << "s}\n"
                      << "polling: {lease: " << kLease.count() << "s}\n"
                      << "channels:\n"
                      << "  - {name: hook, type: webhook, url: \"" << hook << "\","
                      << " secret_env: QUELL_CHAOS_HOOK_SECRET, timeout: 1s,"
                      << " initial_backoff: 100ms, max_backoff: 300ms}\n"
                      << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
                      << "log: {format: json, level: info}\n"
                      << "http: {listen: \"127.0.0.1:0\"}\n";
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
  WriteConfig(config, db.url(), *sim_port, hook.Url());

  PollClock clock(sim);
  std::vector<std::unique_ptr<Instance>> fleet;
  for (int i = 0; i < spec.instances; ++i) {
    fleet.push_back(std::make_unique<Instance>(spec.label + "-" + std::to_string(i + 1),
                                               testing::QuellBinary(), config, spec.dir));
    fleet.back()->Start();
  }
  ChaosLoop chaos(fleet, sim, db, spec.seed, out);
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
  {
    const std::lock_guard<std::mutex> lock(sim.state().mu);
    out.listings_logged =
        sim.state().log.ToJson()["counts"].value("GET /v1/errors/groups", int64_t{0});
  }
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