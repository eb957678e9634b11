#include "prometheus_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "free_port.h"
#include "quell/core/text/url.h"

namespace quell::testing {
namespace {

using Clock = std::chrono::steady_clock;
using core::ErrorCode;
using core::MakeError;
using nlohmann::json;

constexpr auto kStartDeadline = std::chrono::seconds(30);
constexpr auto kStopDeadline = std::chrono::seconds(10);
constexpr auto kPoll = std::chrono::milliseconds(50);
constexpr int kLaunchAttempts = 3;

std::string MakeTempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "quell-prom-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return "";
  return pattern;
}

std::string FormatValue(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

bool SameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// The sample values of an instant-query answer: a vector's samples or a scalar.
std::vector<double> SampleValues(const std::string& body) {
  std::vector<double> values;
  const json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("data")) return values;
  const json& data = doc["data"];
  const auto add = [&values](const json& sample) {
    if (sample.is_array() && sample.size() == 2 && sample[1].is_string()) {
      values.push_back(std::strtod(sample[1].get<std::string>().c_str(), nullptr));
    }
  };
  if (data.value("resultType", "") == "scalar") add(data["result"]);
  if (data.value("resultType", "") == "vector" && data["result"].is_array()) {
    for (const json& item : data["result"]) {
      if (item.is_object() && item.contains("value")) add(item["value"]);
    }
  }
  return values;
}

}  // namespace

bool CiRequiresServers() {
  const char* ci = std::getenv("CI");  // NOLINT(concurrency-mt-unsafe): read before threads
  return ci != nullptr && std::string(ci) == "true";
}

std::string PrometheusServer::Unavailable() {
  if (::access(kBinary, X_OK) != 0) {
    return std::string("no Prometheus at ") + kBinary +
           " (scripts/install-deps installs Debian's prometheus)";
  }
  return "";
}

core::Result<std::unique_ptr<PrometheusServer>> PrometheusServer::Start(Await await) {
  if (std::string why = Unavailable(); !why.empty()) {
    return MakeError(ErrorCode::kUnavailable, why);
  }
  std::unique_ptr<PrometheusServer> server(new PrometheusServer());
  server->dir_ = MakeTempDir();
  if (server->dir_.empty()) return MakeError(ErrorCode::kInternal, "mkdtemp failed");
  server->exporter_ = std::make_unique<MetricsExporter>();
  core::Result<int> exporter_port = server->exporter_->Start();
  if (!exporter_port) return exporter_port.error();
  std::ofstream(server->dir_ + "/prometheus.yml") << "global:\n"
                                                     "  scrape_interval: 1s\n"
                                                     "  scrape_timeout: 1s\n"
                                                     "  evaluation_interval: 1s\n"
                                                     "scrape_configs:\n"
                                                     "  - job_name: "
                                                  << kJob
                                                  << "\n"
                                                     "    static_configs:\n"
                                                     "      - targets: ['127.0.0.1:"
                                                  << *exporter_port << "']\n";

  const Clock::time_point deadline = Clock::now() + kStartDeadline;
  for (int attempt = 1;; ++attempt) {
    core::Result<int> port = FreeLoopbackPort();
    if (!port) return port.error();
    if (core::Status launched = server->Launch(*port); !launched) return launched.error();
    const core::Status ready = server->AwaitReady(await, deadline);
    if (ready) return server;
    const std::string tail = server->LogTail();
    server->Stop();
    if (attempt < kLaunchAttempts && tail.find("address already in use") != std::string::npos) {
      continue;
    }
    return MakeError(ready.error().code,
                     ready.error().message + "\n--- prometheus.log, last lines ---\n" + tail);
  }
}

core::Status PrometheusServer::Launch(int port) {
  port_ = port;
  base_url_ = "http://127.0.0.1:" + std::to_string(port);
  const std::vector<std::string> argv = {
      kBinary,
      "--config.file=" + dir_ + "/prometheus.yml",
      "--storage.tsdb.path=" + dir_ + "/data",
      "--web.listen-address=127.0.0.1:" + std::to_string(port),
  };
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string log = dir_ + "/prometheus.log";
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid < 0) return MakeError(ErrorCode::kInternal, "fork failed");
  if (pid == 0) {
    // Only async-signal-safe calls here: the test process has threads (the exporter's).
    ::setpgid(0, 0);  // its own group, so Stop() reaches anything it starts
    // Dies with the test binary even when that is killed (a ctest timeout), so no Prometheus
    // outlives its test. The signal follows the starting thread: start from the test's thread.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::close_range(3, ~0U, 0);  // the exporter's socket and the test's files stay with the test
    if (::chdir(dir_.c_str()) != 0) ::_exit(126);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // in the parent too, so Stop() finds the group whichever runs first
  pid_ = pid;
  return {};
}

core::Status PrometheusServer::AwaitReady(Await await, Clock::time_point deadline) {
  // Ready first (the TSDB is open and the API answers), then one scrape of the exporter stored.
  while (true) {
    if (Exited()) {
      return MakeError(ErrorCode::kUnavailable, "prometheus exited while starting (" + exit_ + ")");
    }
    if (Get("/-/ready").ok()) break;
    if (Clock::now() >= deadline) {
      return MakeError(ErrorCode::kTimeout, "prometheus not ready at " + base_url_ + "/-/ready");
    }
    std::this_thread::sleep_for(kPoll);
  }
  if (await == Await::kReady) return {};
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return WaitForValue(std::string("up{job=\"") + kJob + "\"}", 1, left);
}

core::Status PrometheusServer::WaitForValue(const std::string& promql, double value,
                                            std::chrono::milliseconds deadline) {
  const Clock::time_point end = Clock::now() + deadline;
  std::string last;
  while (true) {
    if (Exited()) return MakeError(ErrorCode::kUnavailable, "prometheus is not running");
    core::Result<std::string> body = Get("/api/v1/query?query=" + core::UrlEncode(promql));
    if (body) {
      for (const double v : SampleValues(*body)) {
        if (SameValue(v, value)) return {};
      }
      last = *body;
    } else {
      last = body.error().message;
    }
    if (Clock::now() >= end) {
      return MakeError(ErrorCode::kTimeout, promql + " did not return " + FormatValue(value) +
                                                " within " + std::to_string(deadline.count()) +
                                                " ms; last answer: " + last.substr(0, 400));
    }
    std::this_thread::sleep_for(kPoll);
  }
}

core::Result<std::string> PrometheusServer::Get(const std::string& path_and_query) const {
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(std::chrono::seconds(1));
  client.set_read_timeout(std::chrono::seconds(5));
  client.set_url_encode(false);
  const httplib::Result result = client.Get(path_and_query);
  if (!result) {
    return MakeError(ErrorCode::kUnavailable,
                     "GET " + path_and_query + ": " + httplib::to_string(result.error()));
  }
  if (result->status != 200) {
    return MakeError(ErrorCode::kUnavailable, "GET " + path_and_query + ": HTTP " +
                                                  std::to_string(result->status) + " " +
                                                  result->body.substr(0, 200));
  }
  return result->body;
}

bool PrometheusServer::Exited() {
  if (pid_ <= 0) return true;
  int status = 0;
  const pid_t reaped = ::waitpid(pid_, &status, WNOHANG);
  if (reaped == 0 || (reaped < 0 && errno != ECHILD)) return false;
  if (reaped == pid_ && WIFEXITED(status)) {
    exit_ = "exit code " + std::to_string(WEXITSTATUS(status));
  } else if (reaped == pid_ && WIFSIGNALED(status)) {
    exit_ = "signal " + std::to_string(WTERMSIG(status));
  }
  pid_ = -1;
  return true;
}

void PrometheusServer::Stop() {
  if (pid_ <= 0) return;
  const auto signal_group = [this](int sig) {
    if (::kill(-pid_, sig) != 0) ::kill(pid_, sig);
  };
  signal_group(SIGTERM);
  const Clock::time_point end = Clock::now() + kStopDeadline;
  while (!Exited() && Clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (pid_ > 0) {
    signal_group(SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

std::string PrometheusServer::LogTail(size_t lines) const {
  std::ifstream in(dir_ + "/prometheus.log");
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string tail;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    tail += all[i] + '\n';
  }
  return tail;
}

PrometheusServer::~PrometheusServer() {
  Stop();
  if (exporter_) exporter_->Stop();
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

}  // namespace quell::testing
