#pragma once

// The pieces the multi-instance chaos test (and scripts/soak-instances through it) drives:
// a private PostgreSQL schema, `quell run` processes it can kill -9, pause and restart, and a
// clock on quell-sim's listing polls.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "quell/sim/server.h"

struct pg_conn;  // libpq's PGconn

namespace quell::testing {

using Rows = std::vector<std::vector<std::string>>;

// A fresh schema on the server QUELL_TEST_PG_URL names, selected through the URL's
// search_path; dropped on destruction. Queries share one connection (the driver asks every
// 10 ms), opened again after a failure; not thread-safe.
class PgSchema {
 public:
  PgSchema(std::string base_url, const std::string& tag);
  ~PgSchema();
  PgSchema(const PgSchema&) = delete;
  PgSchema& operator=(const PgSchema&) = delete;

  const std::string& url() const { return url_; }
  // Every row of `sql` as text (NULL as ""); throws on an error. Before quell migrated the
  // schema, a query on its tables throws: callers that poll use Count().
  Rows Query(const std::string& sql) const;
  // The first column of the first row of `sql` as a number; -1 when it fails.
  long long Count(const std::string& sql) const;

 private:
  std::string base_;
  std::string schema_;
  std::string url_;
  mutable std::shared_ptr<pg_conn> conn_;
};

// One `quell run -c config` with stderr (its JSON log) to `<dir>/<name>.<n>.log`, a new file
// per start. Kill9() and Restart() are the crash; Pause()/Resume() is a stalled process.
class Instance {
 public:
  Instance(std::string name, std::string binary, std::string config, std::filesystem::path dir);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  void Start();
  void Kill9();
  void Pause();
  void Resume();
  // SIGTERM (after SIGCONT) and reap: the wait status.
  int Stop();

  // True once the process ended by itself (it is reaped then).
  bool Exited();

  const std::string& name() const { return name_; }
  pid_t pid() const { return pid_; }
  bool paused() const { return paused_; }
  std::filesystem::path log() const;
  int starts() const { return starts_; }

 private:
  std::string name_;
  std::string binary_;
  std::string config_;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  bool paused_ = false;
  int starts_ = 0;
};

// Samples quell-sim's count of first-page listing requests (SimState::polls) every 5 ms and
// keeps the instant each one was first seen: the source's poll times, as the source saw them.
class PollClock {
 public:
  explicit PollClock(sim::SimServer& sim);
  ~PollClock();
  PollClock(const PollClock&) = delete;
  PollClock& operator=(const PollClock&) = delete;

  std::vector<std::chrono::steady_clock::time_point> Polls() const;

 private:
  sim::SimServer& sim_;
  mutable std::mutex mu_;
  std::vector<std::chrono::steady_clock::time_point> polls_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace quell::testing
