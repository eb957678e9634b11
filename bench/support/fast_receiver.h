#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "quell/core/text/time.h"

namespace quell::bench {

// A webhook receiver that does nothing expensive: answers HTTP/1.1 POST /hook with 200 and notes
// when each idempotency key arrived and how many body bytes came. One thread serves every
// keep-alive connection from one epoll loop, reading whatever has arrived and answering each
// complete request at once: the benchmarks' senders share the machine's cores with it, so it
// must not spend them on a thread per connection that polls and sleeps between requests (as
// cpp-httplib's pool did, a millisecond at a time). Enough HTTP for curl: Content-Length
// bodies, "Expect: 100-continue", "Connection: close"; anything else is answered 400 and closed.
class FastReceiver {
 public:
  FastReceiver() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int on = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API's own casts
    if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        listen(listen_fd_, 4096) != 0 ||
        getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      Fail("bind");
    }
    // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
    port_ = ntohs(addr.sin_port);
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    stop_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll_fd_ < 0 || stop_fd_ < 0) Fail("epoll");
    Watch(listen_fd_, EPOLLIN);
    Watch(stop_fd_, EPOLLIN);
    thread_ = std::thread([this] { Loop(); });
  }
  ~FastReceiver() {
    const uint64_t one = 1;
    (void)!write(stop_fd_, &one, sizeof one);
    thread_.join();
    for (const auto& [fd, connection] : connections_) close(fd);
    close(listen_fd_);
    close(stop_fd_);
    close(epoll_fd_);
  }
  FastReceiver(const FastReceiver&) = delete;
  FastReceiver& operator=(const FastReceiver&) = delete;

  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  size_t Count() {
    const std::lock_guard<std::mutex> lock(mu_);
    return arrivals_.size();
  }
  uint64_t Bytes() {
    const std::lock_guard<std::mutex> lock(mu_);
    return bytes_;
  }
  // When the latest request arrived; the epoch when none did.
  core::WallTime LastArrival() {
    const std::lock_guard<std::mutex> lock(mu_);
    core::WallTime last{};
    for (const auto& arrival : arrivals_) last = std::max(last, arrival.second);
    return last;
  }
  std::vector<std::pair<std::string, core::WallTime>> Take() {
    const std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(arrivals_, {});
  }

  static core::WallTime Now() {
    return std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now());
  }

 private:
  struct Connection {
    std::string in;            // bytes read and not yet answered, from `parsed` on
    size_t parsed = 0;         // where the next request starts in `in`
    std::string out;           // answers not yet written
    bool continued = false;    // 100 Continue sent for the request at `parsed`
    bool closing = false;      // close once `out` is written
    bool waiting_out = false;  // watched for EPOLLOUT: `out` did not fit in the socket
  };

  [[noreturn]] static void Fail(const char* what) {
    std::fprintf(stderr, "receiver: %s failed\n", what);
    std::exit(1);  // NOLINT(concurrency-mt-unsafe): a bench stops at its first failure
  }

  void Watch(int fd, uint32_t events, int op = EPOLL_CTL_ADD) const {
    epoll_event event{};
    event.events = events;
    event.data.fd = fd;
    if (epoll_ctl(epoll_fd_, op, fd, &event) != 0) Fail("epoll_ctl");
  }

  void Loop() {
    std::array<epoll_event, 128> events{};
    for (;;) {
      const int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), -1);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) Fail("epoll_wait");
      for (int i = 0; i < n; ++i) {
        const epoll_event& event = events[static_cast<size_t>(i)];
        const int fd = event.data.fd;
        if (fd == stop_fd_) return;
        if (fd == listen_fd_) {
          Accept();
          continue;
        }
        const auto it = connections_.find(fd);
        if (it == connections_.end()) continue;
        const bool open =
            (event.events & EPOLLOUT) != 0 ? Flush(fd, it->second) : Serve(fd, it->second);
        if (!open) {
          close(fd);
          connections_.erase(it);
        }
      }
    }
  }

  void Accept() {
    for (;;) {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN: none left
      const int on = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      connections_.emplace(fd, Connection{});
      Watch(fd, EPOLLIN);
    }
  }

  // Reads what arrived and answers every complete request; false: close the connection.
  bool Serve(int fd, Connection& c) {
    std::array<char, 65536> buffer;  // NOLINT(cppcoreguidelines-pro-type-member-init)
    const ssize_t got = read(fd, buffer.data(), buffer.size());
    if (got == 0) return false;
    if (got < 0) return errno == EAGAIN || errno == EINTR;
    c.in.append(buffer.data(), static_cast<size_t>(got));
    while (!c.closing && Answer(c)) {
    }
    if (c.parsed == c.in.size()) {
      c.in.clear();
      c.parsed = 0;
    }
    return Flush(fd, c);
  }

  // Writes pending answers; waits for the socket to drain when it is full.
  bool Flush(int fd, Connection& c) const {
    while (!c.out.empty()) {
      const ssize_t put = send(fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
      if (put < 0 && errno == EINTR) continue;
      if (put < 0 && errno == EAGAIN) {
        if (!c.waiting_out) Watch(fd, EPOLLOUT, EPOLL_CTL_MOD);
        c.waiting_out = true;
        return true;
      }
      if (put < 0) return false;
      c.out.erase(0, static_cast<size_t>(put));
    }
    if (c.waiting_out) Watch(fd, EPOLLIN, EPOLL_CTL_MOD);
    c.waiting_out = false;
    return !c.closing;
  }

  static bool SameName(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return (x | 0x20) == (y | 0x20);  // ASCII letters, '-' and digits are enough here
           });
  }

  // Answers the request at c.parsed if it is all there; false when more must be read first.
  bool Answer(Connection& c) {
    const std::string_view in = std::string_view(c.in).substr(c.parsed);
    const size_t head_end = in.find("\r\n\r\n");
    if (head_end == std::string_view::npos) return false;
    const std::string_view head = in.substr(0, head_end);
    size_t line_end = head.find("\r\n");
    const std::string_view request_line = head.substr(0, line_end);
    std::string_view key;
    size_t length = 0;
    bool expect = false;
    bool bad = false;
    while (line_end != std::string_view::npos) {
      const size_t from = line_end + 2;
      line_end = head.find("\r\n", from);
      const std::string_view line = head.substr(from, line_end - from);
      const size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      const std::string_view name = line.substr(0, colon);
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      if (SameName(name, "Content-Length")) {
        length = 0;
        for (const char d : value) {
          if (d < '0' || d > '9') break;
          length = length * 10 + static_cast<size_t>(d - '0');
        }
      }
      if (SameName(name, "Idempotency-Key")) key = value;
      if (SameName(name, "Expect")) expect = SameName(value, "100-continue");
      if (SameName(name, "Connection")) c.closing = c.closing || SameName(value, "close");
      if (SameName(name, "Transfer-Encoding")) bad = true;  // curl sends Content-Length
    }
    const size_t body_start = head_end + 4;
    if (!bad && in.size() < body_start + length) {
      if (expect && !c.continued) {
        c.out.append("HTTP/1.1 100 Continue\r\n\r\n");
        c.continued = true;
      }
      return false;
    }
    const core::WallTime at = Now();
    const bool hook = request_line.starts_with("POST /hook ");
    if (bad) {
      c.out.append("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      c.closing = true;
    } else if (hook) {
      {
        const std::lock_guard<std::mutex> lock(mu_);
        arrivals_.emplace_back(std::string(key), at);
        bytes_ += length;
      }
      c.out.append("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok");
    } else {
      c.out.append("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    }
    c.parsed += body_start + length;
    c.continued = false;
    return true;
  }

  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int stop_fd_ = -1;
  int port_ = 0;
  std::unordered_map<int, Connection> connections_;  // the loop thread's only
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::pair<std::string, core::WallTime>> arrivals_;
  uint64_t bytes_ = 0;
};

}  // namespace quell::bench
