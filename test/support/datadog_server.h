#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Server;
}

namespace quell::testing {

// A stand-in for Datadog's monitor API (v1), written from Datadog's API reference ("Get all
// monitors": GET /api/v1/monitor with group_states, monitor_tags, page and page_size; the keys
// in DD-API-KEY and DD-APPLICATION-KEY; 403 {"errors": ["Forbidden"]} without them; 429 with
// the X-RateLimit-* headers), not from quell's parser. It serves on 127.0.0.1, port 0, from a
// thread of its own; the test sets monitors and their groups' states. Thread-safe.
class DatadogServer {
 public:
  DatadogServer(std::string api_key, std::string app_key);
  ~DatadogServer();
  DatadogServer(const DatadogServer&) = delete;
  DatadogServer& operator=(const DatadogServer&) = delete;

  // "http://127.0.0.1:<port>": what `datadog.base_url` points at.
  std::string BaseUrl() const;

  // Adds (or renames and retags) monitor `id`.
  void SetMonitor(int64_t id, const std::string& name, const std::vector<std::string>& tags);
  // Sets a group's status ("Alert", "Warn", "OK", "No Data", ...); the group's name is its
  // comma-separated tags ("host:web-1,env:prod"). The monitor's overall_state follows.
  void SetGroup(int64_t id, const std::string& group, const std::string& status);

  // The next `count` requests are answered `status` (429 with X-RateLimit-Reset: `reset`
  // seconds, as Datadog does; any other with {"errors": [...]}).
  void FailNext(int status, size_t count = 1, std::string reset = "1");
  // Schema drift: from now on each group names its state "state" instead of "status".
  void RenameGroupStatus(bool on);

  // Every request's target (path and query), in order.
  std::vector<std::string> Targets() const;
  // Every request's header values, for a test asserting where the keys went.
  std::vector<std::string> HeaderValues() const;

 private:
  struct Monitor {
    std::string name;
    std::vector<std::string> tags;
    std::map<std::string, std::string> groups;  // name -> status
  };

  std::string Answer(const std::string& monitor_tags, bool with_groups, long page,
                     long page_size) const;

  const std::string api_key_;
  const std::string app_key_;
  mutable std::mutex mu_;
  std::map<int64_t, Monitor> monitors_;  // guarded by mu_
  struct Fault {
    int status;
    std::string reset;
  };
  std::vector<Fault> faults_;         // guarded by mu_
  bool rename_status_ = false;        // guarded by mu_
  std::vector<std::string> targets_;  // guarded by mu_
  std::vector<std::string> headers_;  // guarded by mu_
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace quell::testing
