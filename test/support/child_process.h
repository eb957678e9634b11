#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace quell::testing {

// Waits up to `limit` for `done`, checking every 20 ms: for children on the system clock, where
// real time has to pass (a lease to expire, a backoff to elapse, a poll interval).
bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds limit);

// A child process left running (`quell dispatch`, `quell run`), stdout to /dev/null and stderr
// to `log`. The destructor kills and reaps it when still running.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::filesystem::path& log);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool running() const { return pid_ > 0; }
  // Sends `signal` and reaps the child; returns the wait status.
  int Signal(int signal);
  // Sends `signal` and leaves the child running (SIGHUP).
  void Send(int signal) const;

 private:
  pid_t pid_ = -1;
};

// The whole file at `path`; empty when it cannot be read.
std::string ReadFile(const std::filesystem::path& path);

}  // namespace quell::testing
