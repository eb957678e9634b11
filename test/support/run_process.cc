#include "run_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <stdexcept>

extern char** environ;

namespace quell::testing {

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& input) {
  std::array<int, 2> in{};
  std::array<int, 2> out{};
  std::array<int, 2> err{};
  if (::pipe(in.data()) != 0 || ::pipe(out.data()) != 0 || ::pipe(err.data()) != 0) {
    throw std::runtime_error("pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) {
    posix_spawn_file_actions_addclose(&actions, fd);
  }
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) throw std::runtime_error("posix_spawn failed for " + argv[0]);

  // Write stdin and drain both outputs together so that no pipe fills up and deadlocks.
  ::signal(SIGPIPE, SIG_IGN);
  ProcessResult result;
  size_t written = 0;
  int in_fd = in[1];
  if (input.empty()) {
    ::close(in_fd);
    in_fd = -1;
  } else {
    // A blocking write of more than the pipe holds would wait for the child to read while
    // the child waits for us to read its output: write what fits, then poll again.
    ::fcntl(in_fd, F_SETFL, ::fcntl(in_fd, F_GETFL) | O_NONBLOCK);
  }
  bool out_open = true;
  bool err_open = true;
  std::array<char, 65536> buf{};
  while (out_open || err_open) {
    std::array<pollfd, 3> fds{{{out_open ? out[0] : -1, POLLIN, 0},
                               {err_open ? err[0] : -1, POLLIN, 0},
                               {in_fd, POLLOUT, 0}}};
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    if (in_fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
      const ssize_t n = ::write(in_fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if ((n < 0 && errno != EAGAIN) || written == input.size()) {
        ::close(in_fd);
        in_fd = -1;
      }
    }
    for (int i = 0; i < 2; ++i) {
      if ((fds[static_cast<size_t>(i)].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const int fd = i == 0 ? out[0] : err[0];
      const ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
      } else {
        (i == 0 ? result.out : result.err).append(buf.data(), static_cast<size_t>(n));
      }
    }
  }
  if (in_fd >= 0) ::close(in_fd);
  ::close(out[0]);
  ::close(err[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace quell::testing
