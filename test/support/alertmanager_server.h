#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "child_process.h"
#include "quell/core/result.h"

namespace quell::testing {

// A real Alertmanager (Debian's /usr/bin/prometheus-alertmanager) for one test: a child process
// on a free loopback port with a private data directory and clustering off, routing every alert
// to one webhook receiver, the way a user points Alertmanager at quell. Alerts reach it as
// Prometheus sends them (POST /api/v2/alerts), so what quell receives is Alertmanager's own
// payload, grouping and resolved notifications, not a copy of them.
class AlertmanagerServer {
 public:
  static constexpr const char* kBinary = "/usr/bin/prometheus-alertmanager";

  // Why no Alertmanager can run here (the binary is missing); empty when it can.
  static std::string Unavailable();

  struct Receiver {
    std::string url;          // the webhook_configs url
    std::string credentials;  // written to a file and sent as "Authorization: Bearer ..."
    std::string group_by = "[alertname, tenant]";
  };

  // Starts Alertmanager (group_wait and group_interval 1s, so a test waits seconds, not minutes)
  // and returns once /-/ready answers 200 (deadline 30 s); the error carries its log's tail.
  static core::Result<std::unique_ptr<AlertmanagerServer>> Start(const Receiver& receiver);

  ~AlertmanagerServer();
  AlertmanagerServer(const AlertmanagerServer&) = delete;
  AlertmanagerServer& operator=(const AlertmanagerServer&) = delete;

  const std::string& base_url() const { return base_url_; }  // http://127.0.0.1:PORT

  // POST /api/v2/alerts with `alerts_json` (a JSON array of postable alerts), as Prometheus's
  // notifier does; the error names Alertmanager's answer.
  core::Status PostAlerts(const std::string& alerts_json) const;
  std::string LogTail(size_t lines = 20) const;

 private:
  AlertmanagerServer() = default;

  std::filesystem::path dir_;
  std::unique_ptr<Child> child_;
  std::string base_url_;
  int port_ = 0;
};

}  // namespace quell::testing
