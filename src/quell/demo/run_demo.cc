#include "quell/demo/run_demo.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "quell/adapters/system/scaled_clock.h"
#include "quell/adapters/system/signal_thread.h"
#include "quell/adapters/wiring/daemon_assembly.h"
#include "quell/app/run_control.h"
#include "quell/cli/version.h"
#include "quell/core/text/hex.h"
#include "quell/demo/demo_receiver.h"
#include "quell/demo/demo_script.h"
#include "quell/demo/story_log.h"
#include "quell/sim/server.h"

namespace quell::demo {
namespace {

constexpr int kFailed = 1;
constexpr int kCannotStart = 2;
constexpr int kInterrupted = 130;  // 128 + SIGINT, as a shell reports it
constexpr uint64_t kPolls = 9;     // 09:00 to 09:08: the outage, its recovery and two quiet polls
constexpr auto kDemoStart = core::WallTime{std::chrono::seconds(1796202000)};  // 09:00Z
// The receiver answers its first request after this (wall time): past the webhook's 2s.
constexpr auto kHold = std::chrono::milliseconds(3500);

std::string RandomHex(size_t bytes) {
  std::random_device random;
  std::string out;
  for (size_t i = 0; i < bytes; ++i) {
    const auto b = static_cast<uint8_t>(random() & 0xffU);
    core::AppendHex(out, std::span<const uint8_t>(&b, 1));
  }
  return out;
}

// The demo's directory, removed with everything in it when the demo ends unless kept: a demo
// that leaves files behind each time it is tried fills /tmp.
struct Environment {
  Environment() = default;
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  ~Environment() {
    if (dir.empty() || keep) return;
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }

  std::filesystem::path dir;
  bool keep = false;
  std::string config_path;
  std::string store_url;
};

bool SetUp(const std::string& sim_url, const std::string& hook_url, const std::string& secret,
           Environment& env, std::FILE* err) {
  std::error_code ec;
  const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  std::string pattern = ((ec ? std::filesystem::path("/tmp") : base) / "quell-demo.XXXXXX");
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::fprintf(err, "quell demo: cannot create a directory %s\n", pattern.c_str());
    return false;
  }
  env.dir = pattern;
  env.config_path = (env.dir / "quell.yaml").string();
  std::ofstream(env.config_path) << kDemoConfig;
  // The demo's process only: the config reads these, as an operator's would.
  // NOLINTBEGIN(concurrency-mt-unsafe): set before any thread of the demo reads them.
  ::setenv("INFRAI_BASE_URL", sim_url.c_str(), 1);
  ::setenv("INFRAI_API_KEY", ("ifr_demo_" + RandomHex(8)).c_str(), 1);
  env.store_url = "sqlite:" + (env.dir / "quell.db").string();
  ::setenv("QUELL_STORE", env.store_url.c_str(), 1);
  ::setenv("QUELL_WEBHOOK_URL", hook_url.c_str(), 1);
  ::setenv("QUELL_WEBHOOK_SECRET", secret.c_str(), 1);
  // NOLINTEND(concurrency-mt-unsafe)
  return true;
}

}  // namespace

int RunDemo(std::FILE* out, std::FILE* err, bool keep) {
  // Before any thread starts: SIGINT and SIGTERM then stop the daemon like `quell run`, and the
  // directory is removed on the way out instead of left behind by a killed process.
  app::RunControl control;
  const system::SignalThread signals(control);
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
  env.keep = keep;
  if (!SetUp("http://127.0.0.1:" + std::to_string(*sim_port), receiver.Url(), secret, env, err)) {
    return kCannotStart;
  }
  std::fprintf(out,
               "quell demo: a support agent's model calls time out for tenant acme.\n"
               "  quell-sim plays Infrai; one poll a minute, on a clock 60x the wall; the "
               "receiver\n  takes its first message and answers too late, so quell must retry "
               "it.\n  config: %s\n\n",
               env.config_path.c_str());

  // The daemon itself, as `quell run` runs it, on the compressed clock; stopped once the
  // story is told: the scripted polls done and both transitions at the receiver.
  StoryLog story(out, clock);
  auto daemon = wiring::MakeDaemon(wiring::DaemonOptions{.config_path = env.config_path,
                                                         .store_url = "",
                                                         .owner = "demo",
                                                         .dispatch = true,
                                                         .seed = 1,
                                                         .jitter = 0.0,
                                                         .version = cli::kVersion,
                                                         .on_load = nullptr},
                                   clock, story, control, {});
  if (!daemon) {
    std::fprintf(err, "quell demo: %s\n", daemon.error().message.c_str());
    return kCannotStart;
  }
  std::jthread running([&] { (*daemon)->Run(); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  while (std::chrono::steady_clock::now() < deadline && !control.stop_requested() &&
         ((*daemon)->Health().cycles < kPolls || !receiver.WaitForDistinct(2, {}))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const bool interrupted = control.stop_requested();
  control.RequestStop();
  running.join();
  if (interrupted) {
    std::fprintf(err, "quell demo: interrupted; %s\n",
                 keep ? ("kept " + env.dir.string()).c_str() : "its directory is removed");
    return kInterrupted;
  }
  const auto polls = static_cast<unsigned long long>((*daemon)->Health().cycles);  // NOLINT

  std::fprintf(out, "\nthe receiver (in the order requests arrived):\n");
  int opens = 0;
  int resolves = 0;
  int renotifies = 0;
  int duplicates = 0;
  for (const DemoReceiver::Arrival& a : receiver.arrivals()) {
    std::fprintf(out, "  %s  %-8s %s%s\n", ClockText(a.at).c_str(), a.transition.c_str(),
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
               "\n%llu polls, the error seen at %d of them; the receiver kept %d open, %d resolve "
               "and %d other\nmessages, and dropped %d retried duplicate%s.\n",
               polls, story.seen(), opens, resolves, renotifies, duplicates,
               duplicates == 1 ? "" : "s");
  if (keep) {
    std::fprintf(out, "Kept %s; its store: %s\n", env.dir.string().c_str(), env.store_url.c_str());
  } else {
    std::fprintf(out, "Its directory is removed (--keep keeps the config and the store).\n");
  }
  const bool ok = opens == 1 && resolves == 1 && renotifies == 0 && receiver.rejected() == 0;
  std::fprintf(out, "%s\n",
               ok ? "ok: one open, one resolve, no duplicate delivered."
                  : "FAILED: expected exactly one open and one resolve.");
  return ok ? 0 : kFailed;
}

}  // namespace quell::demo
