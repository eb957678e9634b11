#pragma once

#include <thread>

#include "quell/app/run_control.h"

namespace quell::system {

// Turns SIGINT and SIGTERM into RunControl::RequestStop and SIGHUP into RequestReload, on a
// thread of its own reading a signalfd, so no work happens in a signal handler and no loop
// polls a flag. Construct it before any other thread starts: it blocks the three signals in
// the calling thread, and threads started later inherit the mask. The destructor stops the
// thread and restores the mask.
class SignalThread {
 public:
  explicit SignalThread(app::RunControl& control);
  ~SignalThread();
  SignalThread(const SignalThread&) = delete;
  SignalThread& operator=(const SignalThread&) = delete;

  // False when the signalfd could not be made (the signals then keep their default action).
  bool ok() const { return signal_fd_ >= 0; }

 private:
  void Loop();

  app::RunControl& control_;
  int signal_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};  // the destructor writes to [1] to end Loop
  std::thread thread_;
};

}  // namespace quell::system
