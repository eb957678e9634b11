#pragma once

// What the `quell run` end-to-end tests share: a scratch folder of their own, quell-sim serving
// a scenario with the environment a config names it by, and the daemon as a child process whose
// JSON log says when its HTTP port listens.
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.h"
#include "quell/sim/server.h"

namespace quell::testing {

// A folder under the system's temp folder made by mkdtemp, so that two runs of one test (two
// checkouts on one machine) never share it; removed with what it holds when the object goes.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// The infrai section of a config polling StartInfraiSim's server: one attempt per request, so a
// fault the test injects shows in the poll it is injected for.
inline constexpr const char* kInfraiSection =
    "infrai:\n  base_url: ${INFRAI_BASE_URL}\n  retry: {max_attempts: 1}\n";

// quell-sim serving `scenario` on a loopback port, with INFRAI_BASE_URL and INFRAI_API_KEY set for
// kInfraiSection; null when it could not start (the reason on stderr).
std::unique_ptr<sim::SimServer> StartInfraiSim(const nlohmann::json& scenario,
                                               const std::string& api_key);

// `quell run -c CONFIG [ARGS...]` as a child process, its JSON log (stderr) in `log`. The
// destructor kills it when the test has not stopped it.
class QuellRun {
 public:
  QuellRun(const std::filesystem::path& config, std::filesystem::path log,
           const std::vector<std::string>& args = {});

  bool running() const { return child_.running(); }
  // Waits until the log says the HTTP port listens and returns the port; -1 when it did not
  // within `limit` (Log() then says why).
  int WaitListening(std::chrono::seconds limit = std::chrono::seconds(30));
  // The port WaitListening found.
  int port() const { return port_; }
  // The log's JSON lines whose event is `event`, and the whole log for a failure message.
  std::vector<nlohmann::json> Events(const std::string& event) const;
  std::string Log() const { return ReadFile(log_); }
  const std::filesystem::path& log() const { return log_; }
  // Sends `signal` and reaps the daemon: its wait status (0 after a clean SIGTERM).
  int Signal(int signal) { return child_.Signal(signal); }
  // Sends `signal` and leaves it running (SIGHUP reloads).
  void Send(int signal) const { child_.Send(signal); }

 private:
  static std::vector<std::string> Argv(const std::filesystem::path& config,
                                       const std::vector<std::string>& args);

  std::filesystem::path log_;
  Child child_;
  int port_ = -1;
};

}  // namespace quell::testing
