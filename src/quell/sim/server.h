#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "quell/core/result.h"
#include "quell/sim/faults.h"
#include "quell/sim/state.h"

namespace httplib {
class Server;
}

namespace quell::sim {

class Router;

struct SimOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port; Start() returns the one bound
  SimConfig config;
  core::WallTime start = core::WallTime{std::chrono::seconds(1796202000)};  // 2026-12-02T09:00Z
  bool real_clock = false;
  uint64_t seed = 1;
  std::vector<Fault> faults;               // installed at start and after every reset
  std::optional<nlohmann::json> scenario;  // loaded at start
  int threads = 16;                        // > the number of hanging requests a test makes
};

// quell-sim in a box: the Infrai routes, the /_sim admin API and one SimState, served by
// cpp-httplib on a background thread. Tests start one per test on port 0.
class SimServer {
 public:
  explicit SimServer(SimOptions options);
  ~SimServer();
  SimServer(const SimServer&) = delete;
  SimServer& operator=(const SimServer&) = delete;

  // Loads the scenario, binds and starts serving; returns the bound port. Fails with
  // kInvalidArgument (bad scenario) or kUnavailable (cannot bind).
  core::Result<int> Start();
  // Stops accepting, wakes hanging requests and joins the server thread. Idempotent.
  void Stop();
  int port() const { return port_; }
  // For in-process tests that want to look inside; lock state().mu around any access.
  SimState& state() { return *state_; }

 private:
  SimOptions options_;
  std::unique_ptr<SimState> state_;
  std::unique_ptr<httplib::Server> http_;
  std::unique_ptr<Router> router_;  // its handlers capture it, so it lives as long as http_
  std::thread thread_;
  int port_ = 0;
};

}  // namespace quell::sim
