#pragma once

#include <httplib.h>

#include <chrono>
#include <string>

namespace quell::http_server {

// An httplib::Stream over a connection the gate handed out: the bytes it already read come
// first, then the socket (non-blocking; every wait is a poll). Reads end at `read_deadline`,
// so a body that trickles in cannot hold a worker past it; each write waits at most
// `write_timeout` for room. Used by one worker thread at a time.
class HeldStream : public httplib::Stream {
 public:
  HeldStream(int fd, std::string buffered, std::chrono::steady_clock::time_point read_deadline,
             std::chrono::steady_clock::duration write_timeout);

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }

  // The bytes read from the socket but not yet consumed: the start of the next request.
  std::string TakeUnread();

 private:
  bool WaitFor(short events, std::chrono::steady_clock::time_point until) const;

  int fd_;
  std::string buffered_;
  size_t offset_ = 0;
  std::chrono::steady_clock::time_point read_deadline_;
  std::chrono::steady_clock::duration write_timeout_;
};

}  // namespace quell::http_server
