#include "quell_run.h"

#include <cstdlib>
#include <iostream>
#include <system_error>
#include <utility>

#include "daemon_probe.h"
#include "test_paths.h"

namespace quell::testing {

ScratchDir::ScratchDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::cerr << "mkdtemp " << pattern << " failed\n";
    std::abort();
  }
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::unique_ptr<sim::SimServer> StartInfraiSim(const nlohmann::json& scenario,
                                               const std::string& api_key) {
  sim::SimOptions options;
  options.scenario = scenario;
  auto server = std::make_unique<sim::SimServer>(std::move(options));
  auto port = server->Start();
  if (!port.ok()) {
    std::cerr << "quell-sim did not start: " << port.error().message << "\n";
    return nullptr;
  }
  SetEnv("INFRAI_BASE_URL", "http://127.0.0.1:" + std::to_string(*port));
  SetEnv("INFRAI_API_KEY", api_key);
  return server;
}

QuellRun::QuellRun(const std::filesystem::path& config, std::filesystem::path log,
                   const std::vector<std::string>& args)
    : log_(std::move(log)), child_(Argv(config, args), log_) {}

std::vector<std::string> QuellRun::Argv(const std::filesystem::path& config,
                                        const std::vector<std::string>& args) {
  std::vector<std::string> argv = {testing::QuellBinary(), "run", "-c", config.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

int QuellRun::WaitListening(std::chrono::seconds limit) {
  if (!WaitFor([&] { return !Events("http.listening").empty(); }, limit)) return -1;
  port_ = std::stoi(Events("http.listening").front()["port"].get<std::string>());
  return port_;
}

std::vector<nlohmann::json> QuellRun::Events(const std::string& event) const {
  return testing::Events(log_, event);
}

}  // namespace quell::testing
