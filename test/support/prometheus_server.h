#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>

#include "metrics_exporter.h"
#include "quell/core/result.h"

namespace quell::testing {

// A real Prometheus (Debian's /usr/bin/prometheus) for one test binary: a child process on a
// free loopback port with a private data directory, scraping a MetricsExporter in this process
// every second. Nothing outside the test starts or stops it.
class PrometheusServer {
 public:
  static constexpr const char* kBinary = "/usr/bin/prometheus";
  static constexpr const char* kJob = "quell_test";

  // Why no Prometheus can run here (the binary is missing); empty when it can.
  static std::string Unavailable();

  // What Start waits for. The first scrape comes about 6 s after start-up, whatever the scrape
  // interval: Prometheus hands discovered targets to its scrape loops every 5 s. That is why a
  // test binary shares one server, and why a test that needs no data can wait for less.
  enum class Await { kFirstScrape, kReady };

  // Starts the exporter and Prometheus and returns once Prometheus is ready and, by default, has
  // scraped the exporter once (hard deadline 30 s). The error says why, with the tail of
  // Prometheus's log. Prometheus gets SIGKILL when the thread that started it exits (so none
  // outlives a killed test binary): start it from a thread that outlives it, e.g. the main one.
  static core::Result<std::unique_ptr<PrometheusServer>> Start(Await await = Await::kFirstScrape);

  ~PrometheusServer();
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  const std::string& base_url() const { return base_url_; }  // http://127.0.0.1:PORT
  MetricsExporter& exporter() { return *exporter_; }
  int exporter_port() const { return exporter_->port(); }
  void SetGauge(const std::string& name, const core::Labels& labels, double value) {
    exporter_->SetGauge(name, labels, value);
  }

  // Waits until the instant query `promql` returns a sample equal to `value` (NaN matches NaN):
  // what a test set reaches Prometheus only at the next scrape. The error names the last answer.
  core::Status WaitForValue(const std::string& promql, double value,
                            std::chrono::milliseconds deadline = std::chrono::seconds(15));

  // SIGTERM to Prometheus's process group, SIGKILL if it has not exited within 10 s; waits for
  // it. Idempotent; the destructor calls it.
  void Stop();
  // The last `lines` lines Prometheus logged.
  std::string LogTail(size_t lines = 15) const;

 private:
  PrometheusServer() = default;
  core::Status Launch(int port);
  core::Status AwaitReady(Await await, std::chrono::steady_clock::time_point deadline);
  bool Exited();  // reaps the child when it has exited
  core::Result<std::string> Get(const std::string& path_and_query) const;

  std::unique_ptr<MetricsExporter> exporter_;
  std::string dir_;  // the temporary directory: config, data/ and prometheus.log
  std::string base_url_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string exit_;  // how the child ended, once reaped
};

// True when the run is CI's (CI=true), where a test must not skip for a missing server. The same
// rule as test/contract's InCi(), which lives in the store support library this one keeps clear of.
bool CiRequiresServers();

}  // namespace quell::testing

// Skips the calling test when Prometheus cannot run here; under CI=true fails it instead.
#define QUELL_REQUIRE_PROMETHEUS()                                                           \
  do {                                                                                       \
    if (std::string why = ::quell::testing::PrometheusServer::Unavailable(); !why.empty()) { \
      if (::quell::testing::CiRequiresServers()) FAIL() << "CI=true but " << why;            \
      GTEST_SKIP() << why;                                                                   \
    }                                                                                        \
  } while (0)
