#include "quell/cli/demo_command.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/system/scaled_clock.h"
#include "quell/cli/demo_receiver.h"
#include "quell/cli/demo_script.h"
#include "quell/cli/dispatch_wiring.h"
#include "quell/cli/poll_wiring.h"
#include "quell/cli/store_url.h"
#include "quell/core/decision.h"
#include "quell/sim/server.h"

namespace quell::cli {
namespace {

constexpr int kFailed = 1;
constexpr int kCannotStart = 2;
constexpr int kPolls = 9;  // 09:00 to 09:08: the outage, its recovery and two quiet polls
constexpr auto kDemoStart = core::WallTime{std::chrono::seconds(1796202000)};  // 09:00Z
// The receiver answers its first request after this (wall time): past the webhook's 2s.
constexpr auto kHold = std::chrono::milliseconds(3500);

std::string Clock(core::WallTime t) { return core::FormatRfc3339(t).substr(11, 5); }

std::string RandomHex(size_t bytes) {
  std::random_device random;
  std::string out;
  for (size_t i = 0; i < bytes; ++i) {
    static constexpr char kHex[] = "0123456789abcdef";
    const auto b = static_cast<unsigned>(random() & 0xffU);
    out += kHex[b >> 4U];
    out += kHex[b & 0xfU];
  }
  return out;
}

// One line per decision that is not a quiet "ignore", as the poll commits.
class StorySink : public app::DecisionSink {
 public:
  explicit StorySink(std::FILE* out) : out_(out) {}
  void OnDecision(const core::Observation& observation, const core::Decision& decision) override {
    if (decision.kind == core::DecisionKind::kIgnore) return;
    const char* seen = observation.health == core::Health::kUnhealthy ? "error seen"
                       : observation.health == core::Health::kHealthy ? "healthy   "
                                                                      : "unknown   ";
    std::string what = core::DecisionName(decision.kind);
    if (const char* reason = core::ReasonName(decision.reason); *reason != '\0') {
      what += std::string(" (") + reason + ")";
    }
    const bool sends = decision.transition.has_value();
    std::fprintf(out_, "  %s poll  %s  %-34s %s\n", Clock(observation.at).c_str(), seen,
                 what.c_str(), sends ? "-> outbox: one message" : "");
    if (observation.health == core::Health::kUnhealthy) ++seen_;
  }
  void Reset() override {}
  int seen() const { return seen_; }  // polls at which the error was seen

 private:
  std::FILE* out_;
  int seen_ = 0;
};

struct Environment {
  std::filesystem::path dir;
  std::string config_path;
};

bool SetUp(const std::string& sim_url, const std::string& hook_url, const std::string& secret,
           Environment& env, std::FILE* err) {
  char pattern[] = "/tmp/quell-demo.XXXXXX";
  if (::mkdtemp(pattern) == nullptr) {
    std::fprintf(err, "quell demo: cannot create a directory under /tmp\n");
    return false;
  }
  env.dir = pattern;
  env.config_path = (env.dir / "quell.yaml").string();
  std::ofstream(env.config_path) << kDemoConfig;
  // The demo's process only: the config reads these, as an operator's would.
  // NOLINTBEGIN(concurrency-mt-unsafe): set before any thread of the demo reads them.
  ::setenv("INFRAI_BASE_URL", sim_url.c_str(), 1);
  ::setenv("INFRAI_API_KEY", ("ifr_demo_" + RandomHex(8)).c_str(), 1);
  ::setenv("QUELL_STORE", ("sqlite:" + (env.dir / "quell.db").string()).c_str(), 1);
  ::setenv("QUELL_WEBHOOK_URL", hook_url.c_str(), 1);
  ::setenv("QUELL_WEBHOOK_SECRET", secret.c_str(), 1);
  // NOLINTEND(concurrency-mt-unsafe)
  return true;
}

}  // namespace

int RunDemo(std::FILE* out, std::FILE* err) {
  system::ScaledClock clock(kDemoStart, kDemoClockFactor);

  sim::SimOptions sim_options;
  sim_options.scenario = nlohmann::json::parse(kDemoScenario);
  sim::SimServer sim(std::move(sim_options));
  auto sim_port = sim.Start();
  if (!sim_port) {
    std::fprintf(err, "quell demo: quell-sim: %s\n", sim_port.error().message.c_str());
    return kCannotStart;
  }
  const std::string secret = RandomHex(24);
  DemoReceiver receiver(secret, clock, kHold);
  if (!receiver.Start()) {
    std::fprintf(err, "quell demo: the receiver cannot bind 127.0.0.1\n");
    return kCannotStart;
  }
  Environment env;
  if (!SetUp("http://127.0.0.1:" + std::to_string(*sim_port), receiver.Url(), secret, env, err)) {
    return kCannotStart;
  }
  auto config = config::LoadConfig(env.config_path, config::ProcessEnv());
  if (!config) {
    std::fprintf(err, "quell demo: %s\n", config.error().message.c_str());
    return kCannotStart;
  }
  // Two connections, as `quell run` has: the poller's and the dispatcher's.
  auto poll_store = OpenStore(config->store_url);
  if (!poll_store) {
    std::fprintf(err, "quell demo: %s\n", poll_store.error().message.c_str());
    return kCannotStart;
  }
  auto dispatch_store = OpenStore(config->store_url);
  if (!dispatch_store) {
    std::fprintf(err, "quell demo: %s\n", dispatch_store.error().message.c_str());
    return kCannotStart;
  }
  auto* outbox = dynamic_cast<core::OutboxStore*>(dispatch_store->get());
  if (outbox == nullptr) {
    std::fprintf(err, "quell demo: the store cannot dispatch\n");
    return kCannotStart;
  }
  auto poll = PollWiring::Create(*config, **poll_store, clock);
  if (!poll) {
    std::fprintf(err, "quell demo: %s\n", poll.error().message.c_str());
    return kCannotStart;
  }
  auto dispatch = DispatchWiring::Create(*config, *outbox, clock, "demo");
  if (!dispatch) {
    std::fprintf(err, "quell demo: %s\n", dispatch.error().message.c_str());
    return kCannotStart;
  }

  std::fprintf(out,
               "quell demo: a support agent's model calls time out for tenant acme.\n"
               "  quell-sim plays Infrai; one poll a minute, on a clock 60x the wall; the "
               "receiver\n  takes its first message and answers too late, so quell must retry "
               "it.\n  config: %s\n\n",
               env.config_path.c_str());

  // The dispatcher runs beside the poller, as in `quell run`.
  std::atomic<bool> stop{false};
  std::jthread dispatcher([&] {
    while (!stop.load()) {
      const app::DispatchReport report = (*dispatch)->dispatcher().RunOnce();
      if (report.next_due && *report.next_due <= clock.Now()) continue;
      clock.SleepFor(config->dispatch.idle_interval);
    }
  });
  StorySink story(out);
  const core::Duration interval = std::chrono::minutes(1);
  for (int i = 0; i < kPolls; ++i) {
    const core::WallTime due = kDemoStart + i * interval;
    if (const core::WallTime now = clock.Now(); now < due) clock.SleepFor(due - now);
    (*poll)->RunCycle(story);
  }
  // Both transitions reach the receiver once the held open was retried.
  receiver.WaitForDistinct(2, std::chrono::seconds(20));
  stop.store(true);
  dispatcher.join();

  std::fprintf(out, "\nthe receiver (in the order requests arrived):\n");
  int opens = 0;
  int resolves = 0;
  int renotifies = 0;
  int duplicates = 0;
  for (const DemoReceiver::Arrival& a : receiver.arrivals()) {
    std::fprintf(out, "  %s  %-8s %s%s\n", Clock(a.at).c_str(), a.transition.c_str(),
                 a.idempotency_key.c_str(),
                 a.duplicate ? "  (retry, same key: dropped as a duplicate)"
                 : a.held    ? "  (accepted, answered too late: quell timed out)"
                             : "");
    if (a.duplicate) {
      ++duplicates;
    } else if (a.transition == "open") {
      ++opens;
    } else if (a.transition == "resolve") {
      ++resolves;
    } else {
      ++renotifies;
    }
  }
  std::fprintf(out,
               "\n%d polls, the error seen at %d of them; the receiver kept %d open, %d resolve "
               "and %d other\nmessages, and dropped %d retried duplicate%s. Store: %s\n",
               kPolls, story.seen(), opens, resolves, renotifies, duplicates,
               duplicates == 1 ? "" : "s", config->store_url.c_str());
  const bool ok = opens == 1 && resolves == 1 && renotifies == 0 && receiver.rejected() == 0;
  std::fprintf(out, "%s\n",
               ok ? "ok: one open, one resolve, no duplicate delivered."
                  : "FAILED: expected exactly one open and one resolve.");
  return ok ? 0 : kFailed;
}

}  // namespace quell::cli
