#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "quell/core/conditions/error_group.h"
#include "quell/core/result.h"

namespace httplib {
class Server;
}

namespace quell::testing {

// A tiny Prometheus exporter inside the test process: GET /metrics serves, in the text
// exposition format, the gauges the test has set, so a real Prometheus has something to scrape.
// Thread-safe: Prometheus scrapes while the test sets values.
class MetricsExporter {
 public:
  MetricsExporter();
  ~MetricsExporter();
  MetricsExporter(const MetricsExporter&) = delete;
  MetricsExporter& operator=(const MetricsExporter&) = delete;

  // Binds 127.0.0.1 on a free port and serves on a background thread; returns the port.
  // kUnavailable when it cannot bind.
  core::Result<int> Start();
  // Stops serving and joins the thread. Idempotent.
  void Stop();
  int port() const { return port_; }

  // Sets (or adds) the gauge `name` with `labels` (any order) to `value`; NaN and infinities too.
  void SetGauge(const std::string& name, core::Labels labels, double value);
  // Removes one series; Prometheus then marks it stale at its next scrape.
  void RemoveGauge(const std::string& name, core::Labels labels);
  // What GET /metrics answers now.
  std::string Exposition() const;
  // How many times /metrics has been served.
  int scrapes() const { return scrapes_.load(); }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::map<core::Labels, double>> gauges_;  // guarded by mu_
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> scrapes_{0};
};

}  // namespace quell::testing
