#include "quell/adapters/system/signal_thread.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <array>
#include <csignal>

namespace quell::system {
namespace {

sigset_t StopAndReloadSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

SignalThread::SignalThread(app::RunControl& control) : control_(control) {
  const sigset_t set = StopAndReloadSignals();
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;
  if (pipe2(wake_pipe_, O_CLOEXEC) != 0) return;
  signal_fd_ = signalfd(-1, &set, SFD_CLOEXEC);
  if (signal_fd_ < 0) return;
  thread_ = std::thread([this] { Loop(); });
}

SignalThread::~SignalThread() {
  if (thread_.joinable()) {
    const char byte = 0;
    (void)!write(wake_pipe_[1], &byte, 1);
    thread_.join();
  }
  for (const int fd : {signal_fd_, wake_pipe_[0], wake_pipe_[1]}) {
    if (fd >= 0) close(fd);
  }
  const sigset_t set = StopAndReloadSignals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void SignalThread::Loop() {
  std::array<pollfd, 2> fds{pollfd{.fd = signal_fd_, .events = POLLIN, .revents = 0},
                            pollfd{.fd = wake_pipe_[0], .events = POLLIN, .revents = 0}};
  for (;;) {
    if (poll(fds.data(), fds.size(), -1) < 0) continue;  // EINTR
    if ((fds[1].revents & POLLIN) != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    signalfd_siginfo info{};
    if (read(signal_fd_, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) continue;
    if (info.ssi_signo == SIGHUP) {
      control_.RequestReload();
    } else {
      control_.RequestStop();
    }
  }
}

}  // namespace quell::system
