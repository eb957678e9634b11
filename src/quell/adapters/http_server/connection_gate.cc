#include "quell/adapters/http_server/connection_gate.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <system_error>
#include <utility>

namespace quell::http_server {
namespace {

using Steady = std::chrono::steady_clock;

constexpr int kBacklog = 1024;

// The blank line that ends a head, with CRLF or bare LF line ends.
bool HeadComplete(const std::string& buffered) {
  return buffered.find("\n\r\n") != std::string::npos || buffered.find("\n\n") != std::string::npos;
}

}  // namespace

// In the one error shape; best effort, never blocking.
void ConnectionGate::SendRefusal(int fd, Refusal refusal) {
  if (refusal == Refusal::kNone) return;
  const bool timed_out = refusal == Refusal::kTimedOut;
  const std::string body =
      timed_out
          ? R"({"error":{"code":"request_timeout","message":"the request head did not arrive in time"}})"
          : R"({"error":{"code":"bad_request","message":"the request head is larger than 16 KiB"}})";
  std::string text = timed_out ? "HTTP/1.1 408 Request Timeout\r\n"
                               : "HTTP/1.1 431 Request Header Fields Too Large\r\n";
  text.append("Content-Type: application/json\r\nConnection: close\r\nContent-Length: ")
      .append(std::to_string(body.size()))
      .append("\r\n\r\n")
      .append(body);
  (void)::send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

namespace {

int PollMillis(Steady::duration d) {
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(d).count();
  return static_cast<int>(std::clamp<int64_t>(ms, 0, 1000));
}

}  // namespace

void CloseSocket(int fd) {
  if (fd < 0) return;
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

ConnectionGate::ConnectionGate(GateOptions options, Ready ready)
    : options_(options), ready_(std::move(ready)) {}

ConnectionGate::~ConnectionGate() {
  Stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

core::Result<int> ConnectionGate::Listen(const std::string& host, int port,
                                         const std::string& listen_text) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found) != 0) {
    return core::MakeError(core::ErrorCode::kUnavailable,
                           "cannot listen on " + listen_text + ": cannot resolve " + host);
  }
  int error = 0;
  for (addrinfo* a = found; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
    const int fd =
        ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = errno;
      continue;
    }
    // SO_REUSEADDR alone (never SO_REUSEPORT, with which a second daemon would bind the same
    // port and the kernel split the connections): a restart binds at once while old
    // connections linger in TIME_WAIT, and a port in use fails to bind.
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, kBacklog) != 0) {
      error = errno;
      ::close(fd);
      continue;
    }
    listen_fd_ = fd;
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0) {
    return core::MakeError(
        core::ErrorCode::kUnavailable,
        "cannot listen on " + listen_text + ": " +
            (error == EADDRINUSE ? std::string("the address is already in use (another quell "
                                               "run, or another program, holds it)")
             : error != 0        ? std::generic_category().message(error)
                                 : std::string("cannot bind it")));
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &length);
  const uint16_t net_port = bound.ss_family == AF_INET6
                                ? reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port
                                : reinterpret_cast<const sockaddr_in*>(&bound)->sin_port;
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    return core::MakeError(core::ErrorCode::kUnavailable,
                           "cannot listen on " + listen_text + ": no eventfd");
  }
  return static_cast<int>(ntohs(net_port));
}

void ConnectionGate::Start() {
  thread_ = std::thread([this] { Run(); });
}

void ConnectionGate::Stop() {
  {
    const std::lock_guard<std::mutex> lock(returned_mutex_);
    stopped_ = true;
  }
  stopping_ = true;
  Wake();
  if (thread_.joinable()) thread_.join();
}

void ConnectionGate::Return(HeldConnection connection) {
  const int fd = connection.fd;
  bool taken = false;
  {
    const std::lock_guard<std::mutex> lock(returned_mutex_);
    if (!stopped_) {
      returned_.push_back(std::move(connection));
      taken = true;
    }
  }
  if (taken) {
    Wake();
    return;
  }
  CloseSocket(fd);
  Closed();
}

void ConnectionGate::Closed() { open_.fetch_sub(1); }

void ConnectionGate::Wake() const {
  if (wake_fd_ < 0) return;
  const uint64_t one = 1;
  (void)::write(wake_fd_, &one, sizeof(one));
}

void ConnectionGate::Run() {
  std::vector<pollfd> fds;
  while (!stopping_) {
    TakeReturned(Steady::now());
    fds.clear();
    fds.push_back(pollfd{wake_fd_, POLLIN, 0});
    fds.push_back(pollfd{listen_fd_, POLLIN, 0});
    auto next = Steady::now() + std::chrono::seconds(1);
    for (const Waiting& w : waiting_) {
      fds.push_back(pollfd{w.fd, POLLIN, 0});
      next = std::min(next, w.deadline);
    }
    const size_t polled = waiting_.size();
    const int ready = ::poll(fds.data(), fds.size(), PollMillis(next - Steady::now()));
    if (ready < 0 && errno != EINTR) break;
    if (stopping_) break;
    if ((fds[0].revents & POLLIN) != 0) {
      uint64_t count = 0;
      (void)::read(wake_fd_, &count, sizeof(count));
    }
    const auto now = Steady::now();
    // Heads first, so that eviction below never picks a connection whose head just completed.
    for (size_t i = 0; i < polled; ++i) {
      Waiting& w = waiting_[i];
      if (w.fd < 0) continue;
      if ((fds[i + 2].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
        if (ReadHead(w)) continue;
      }
      if (now >= w.deadline) {
        CloseWaiting(
            w, w.between_requests && w.buffered.empty() ? Refusal::kNone : Refusal::kTimedOut);
      }
    }
    if ((fds[1].revents & POLLIN) != 0) AcceptAll(now);
    std::erase_if(waiting_, [](const Waiting& w) { return w.fd < 0; });
  }
  for (Waiting& w : waiting_) CloseWaiting(w, Refusal::kNone);
  waiting_.clear();
  std::vector<HeldConnection> returned;
  {
    const std::lock_guard<std::mutex> lock(returned_mutex_);
    returned.swap(returned_);
  }
  for (const HeldConnection& c : returned) {
    CloseSocket(c.fd);
    Closed();
  }
  ::close(listen_fd_);
  listen_fd_ = -1;
}

void ConnectionGate::AcceptAll(Steady::time_point now) {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: all taken; anything else: the next poll tries again
    if (open_.load() >= std::max<size_t>(options_.max_connections, 1)) {
      // Make room by closing the connection that has waited longest for its head; when every
      // connection is at a worker, the newcomer waits its turn in no queue: it is closed.
      auto oldest = std::min_element(waiting_.begin(), waiting_.end(),
                                     [](const Waiting& a, const Waiting& b) {
                                       return (a.fd >= 0 ? a.since : Steady::time_point::max()) <
                                              (b.fd >= 0 ? b.since : Steady::time_point::max());
                                     });
      if (oldest == waiting_.end() || oldest->fd < 0) {
        CloseSocket(fd);
        continue;
      }
      CloseWaiting(*oldest, oldest->between_requests ? Refusal::kNone : Refusal::kTimedOut);
    }
    open_.fetch_add(1);
    int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    waiting_.push_back(Waiting{.fd = fd,
                               .buffered = {},
                               .since = now,
                               .deadline = now + options_.header_timeout,
                               .between_requests = false});
  }
}

bool ConnectionGate::ReadHead(Waiting& w) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::recv(w.fd, buffer, sizeof(buffer), 0);
    if (n > 0) {
      w.buffered.append(buffer, static_cast<size_t>(n));
      if (HandOutIfComplete(w)) return true;
      if (w.buffered.size() > options_.max_head_bytes) {
        CloseWaiting(w, Refusal::kHeadTooLarge);
        return true;
      }
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
    if (n < 0 && errno == EINTR) continue;
    CloseWaiting(w, Refusal::kNone);  // the client closed, or the connection broke
    return true;
  }
}

bool ConnectionGate::HandOutIfComplete(Waiting& w) {
  if (!HeadComplete(w.buffered)) return false;
  HeldConnection connection{w.fd, std::move(w.buffered)};
  w.fd = -1;
  ready_(std::move(connection));
  return true;
}

void ConnectionGate::CloseWaiting(Waiting& w, Refusal refusal) {
  if (w.fd < 0) return;
  SendRefusal(w.fd, refusal);
  CloseSocket(w.fd);
  w.fd = -1;
  Closed();
}

void ConnectionGate::TakeReturned(Steady::time_point now) {
  std::vector<HeldConnection> returned;
  {
    const std::lock_guard<std::mutex> lock(returned_mutex_);
    returned.swap(returned_);
  }
  for (HeldConnection& c : returned) {
    // Nothing yet of the next request: the idle timeout; part of it: the head's.
    const core::Duration wait =
        c.buffered.empty() ? options_.idle_timeout : options_.header_timeout;
    Waiting w{.fd = c.fd,
              .buffered = std::move(c.buffered),
              .since = now,
              .deadline = now + wait,
              .between_requests = true};
    if (!HandOutIfComplete(w)) waiting_.push_back(std::move(w));
  }
}

}  // namespace quell::http_server
