#include "alertmanager_server.h"

#include <httplib.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "free_port.h"

namespace quell::testing {
namespace {

constexpr auto kStartDeadline = std::chrono::seconds(30);
constexpr int kLaunchAttempts = 3;

// The routing a user writes to send every alert to quell (docs/inputs.md shows the same).
std::string ConfigYaml(const AlertmanagerServer::Receiver& receiver,
                       const std::filesystem::path& credentials) {
  std::ostringstream out;
  out << "route:\n"
      << "  receiver: quell\n"
      << "  group_by: " << receiver.group_by << "\n"
      << "  group_wait: 1s\n"
      << "  group_interval: 1s\n"
      << "  repeat_interval: 1m\n"
      << "receivers:\n"
      << "  - name: quell\n"
      << "    webhook_configs:\n"
      << "      - url: \"" << receiver.url << "\"\n"
      << "        send_resolved: true\n"
      << "        http_config:\n"
      << "          authorization:\n"
      << "            credentials_file: " << credentials.string() << "\n";
  return out.str();
}

bool Ready(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(1, 0);
  auto answer = client.Get("/-/ready");
  return answer && answer->status == 200;
}

}  // namespace

std::string AlertmanagerServer::Unavailable() {
  std::ifstream binary(kBinary);
  if (!binary)
    return std::string(kBinary) + " is not installed (apt-get install prometheus-alertmanager)";
  return "";
}

core::Result<std::unique_ptr<AlertmanagerServer>> AlertmanagerServer::Start(
    const Receiver& receiver) {
  std::unique_ptr<AlertmanagerServer> server(new AlertmanagerServer());
  std::string pattern = (std::filesystem::temp_directory_path() / "quell-am-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return core::MakeError(core::ErrorCode::kUnavailable, "mkdtemp failed");
  }
  server->dir_ = pattern;
  const std::filesystem::path credentials = server->dir_ / "quell-token";
  std::ofstream(credentials) << receiver.credentials << "\n";
  const std::filesystem::path config = server->dir_ / "alertmanager.yml";
  std::ofstream(config) << ConfigYaml(receiver, credentials);
  for (int attempt = 0; attempt < kLaunchAttempts; ++attempt) {
    auto port = FreeLoopbackPort();
    if (!port) return port.error();
    server->port_ = *port;
    server->base_url_ = "http://127.0.0.1:" + std::to_string(*port);
    server->child_ = std::make_unique<Child>(
        std::vector<std::string>{kBinary, "--config.file=" + config.string(),
                                 "--storage.path=" + (server->dir_ / "data").string(),
                                 "--web.listen-address=127.0.0.1:" + std::to_string(*port),
                                 "--cluster.listen-address=", "--log.level=debug"},
        server->dir_ / "alertmanager.log");
    const auto deadline = std::chrono::steady_clock::now() + kStartDeadline;
    while (std::chrono::steady_clock::now() < deadline) {
      if (Ready(*port)) return server;
      if (server->LogTail().find("address already in use") != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    server->child_.reset();
  }
  return core::MakeError(core::ErrorCode::kUnavailable,
                         "Alertmanager did not become ready: " + server->LogTail());
}

AlertmanagerServer::~AlertmanagerServer() {
  child_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

core::Status AlertmanagerServer::PostAlerts(const std::string& alerts_json) const {
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(2, 0);
  auto answer = client.Post("/api/v2/alerts", alerts_json, "application/json");
  if (!answer) return core::MakeError(core::ErrorCode::kUnavailable, "no answer from Alertmanager");
  if (answer->status != 200) {
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        "Alertmanager answered " + std::to_string(answer->status) + ": " + answer->body);
  }
  return {};
}

std::string AlertmanagerServer::LogTail(size_t lines) const {
  const std::string log = ReadFile(dir_ / "alertmanager.log");
  size_t start = log.size();
  for (size_t n = 0; n <= lines && start > 0; ++n) {
    const size_t newline = log.rfind('\n', start - 1);
    if (newline == std::string::npos) return log;
    start = newline;
  }
  return start < log.size() ? log.substr(start + 1) : log;
}

}  // namespace quell::testing
