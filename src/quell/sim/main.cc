// quell-sim: a local stand-in for the Infrai HTTP API (docs/simulator.md).
// Prints "listening HOST:PORT" as its first stdout line so callers can ask for port 0.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "quell/sim/server.h"

namespace {

using quell::sim::SimOptions;

int Fail(const std::string& message) {
  std::cerr << "quell-sim: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"quell-sim: a faithful local simulator of the Infrai HTTP API"};
  std::string listen = "127.0.0.1:0";
  std::string scenario_path;
  std::string clock = "2026-12-02T09:00:00Z";
  std::string advance_per_poll;
  std::vector<std::string> fault_specs;
  std::vector<std::string> renames;
  SimOptions options;
  app.add_option("--listen", listen, "HOST:PORT to bind; port 0 picks a free one");
  app.add_option("--scenario", scenario_path, "JSON scenario file to load at start");
  app.add_option("--page-size", options.config.page_size,
                 "default page size of group listings (0 = no pagination)");
  app.add_option("--max-page-size", options.config.max_page_size,
                 "cap on a client's limit (0 = none)");
  app.add_option("--detail-events", options.config.detail_events,
                 "events[] length in group_detail");
  app.add_option("--clock", clock, "start instant of the manual clock (RFC 3339), or \"real\"");
  app.add_option("--advance-per-poll", advance_per_poll,
                 "move the manual clock this much per poll, e.g. 1m");
  app.add_option("--fault", fault_specs,
                 "fault spec, e.g. route=errors.groups,kind=429,count=2,retry_after=3");
  app.add_option("--rename", renames, "serve a group field under another name: FROM=TO");
  app.add_option("--seed", options.seed, "seed for probabilistic faults and request ids");
  app.add_option("--threads", options.threads, "HTTP worker threads")->check(CLI::Range(1, 1024));
  CLI11_PARSE(app, argc, argv);

  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return Fail("--listen wants HOST:PORT, got " + listen);
  options.host = listen.substr(0, colon);
  try {
    options.port = std::stoi(listen.substr(colon + 1));
  } catch (const std::exception&) {
    return Fail("--listen: bad port in " + listen);
  }
  if (clock == "real") {
    options.real_clock = true;
  } else {
    auto t = quell::core::ParseRfc3339(clock);
    if (!t.ok()) return Fail("--clock: " + t.error().message);
    options.start = *t;
  }
  if (!advance_per_poll.empty()) {
    auto d = quell::core::ParseDuration(advance_per_poll);
    if (!d.ok()) return Fail("--advance-per-poll: " + d.error().message);
    options.config.advance_per_poll = *d;
  }
  for (const std::string& spec : fault_specs) {
    auto f = quell::sim::ParseFaultSpec(spec);
    if (!f.ok()) return Fail("--fault " + spec + ": " + f.error().message);
    options.faults.push_back(std::move(*f));
  }
  for (const std::string& r : renames) {
    const size_t eq = r.find('=');
    if (eq == std::string::npos) return Fail("--rename wants FROM=TO, got " + r);
    quell::sim::Fault f;
    f.route = "/v1/errors/*";
    f.kind = quell::sim::FaultKind::kRename;
    f.renames.emplace_back(r.substr(0, eq), r.substr(eq + 1));
    options.faults.push_back(std::move(f));
  }
  if (!scenario_path.empty()) {
    std::ifstream in(scenario_path);
    if (!in) return Fail(scenario_path + ": cannot open");
    std::stringstream text;
    text << in.rdbuf();
    try {
      options.scenario = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::parse_error& e) {
      return Fail(scenario_path + ": byte " + std::to_string(e.byte) + ": not valid JSON");
    }
  }

  // Block the stop signals before any thread starts, then take them synchronously below:
  // httplib's stop() is not async-signal-safe.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  quell::sim::SimServer server(std::move(options));
  auto port = server.Start();
  if (!port.ok()) return Fail(port.error().message);
  std::printf("listening %s:%d\n", listen.substr(0, colon).c_str(), *port);
  std::fflush(stdout);

  int received = 0;
  sigwait(&stop_signals, &received);
  server.Stop();
  std::fprintf(stderr, "quell-sim: stopped on signal %d\n", received);
  return 0;
}
